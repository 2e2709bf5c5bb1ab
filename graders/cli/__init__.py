"""The command line: grading a class on an instructor's machine, each submission in a sandbox of its own
(`main`: the batch and Ctrl+C; `options`: the command line in Portuguese; `collect`: files and folders;
`sandbox`: where student code runs; `summary`, `copies`, `metadata`: what every report says about the
class; `document`, `report`, `spreadsheet`, `html_report`: the formats)."""
