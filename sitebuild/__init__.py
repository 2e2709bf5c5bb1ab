"""The lesson site's own build steps, which belong to neither builder (MkDocs or Zensical).

- `sitebuild.exercise_fence.format_exercise`: the `exercise` SuperFences fence, named in mkdocs.yml;
- `python -m sitebuild finish site/`: the post-build step (sitebuild/finish.py) run on the finished
  folder: Pyodide, the page's Python, page tags, the service worker's fingerprint, checks;
- `python -m sitebuild serve --builder zensical`: build, finish and serve, rebuilding on change;
- sitebuild/mkdocs_hook.py: MkDocs' only hook, which runs the same post-build step.
"""
