"""The Python API's sandboxed session: a child process inside the sandbox runs a ``ScriptSession``
(:mod:`.child`), the API's side drives it (:mod:`.client`), JSON lines between them (:mod:`.wire`). It imports the
root's Python API (the child), ``session`` (the results) and the rest of the sandbox."""
