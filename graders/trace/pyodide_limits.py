"""What the browser's Python (Pyodide) cannot run, in the student's words: the page ends such a run with
one of these, and the judge words the same failure the same way when only the error shows it."""

THREAD_MESSAGE = (
    "O código inicia uma thread, e o Python do navegador (Pyodide) não tem threads: esta execução não pode "
    "ser corrigida aqui. Corrija pela linha de comando (python -m graders), onde threads funcionam, "
    "ou faça o trabalho sem threads."
)
PROCESS_MESSAGE = ("o código tentou iniciar outro processo (multiprocessing, subprocess ou os.fork), e o Python do "
                   "navegador (Pyodide) não tem processos: aqui, tudo roda dentro de run_agent. Corrija pela linha de "
                   "comando (python -m graders), onde processos funcionam, ou faça o trabalho num processo só")
