"""The sandbox: a session's process run under bubblewrap as a dedicated non-root user, with the system read-only, a
workspace, an empty home, an environment allowlist, process and file limits, a seccomp filter and, for the network,
an allowlisting proxy outside (:mod:`.egress`). :mod:`.layout` says what the sandbox holds, :mod:`.bwrap` builds its
command line, :mod:`.host` checks what the machine must provide and :mod:`.sandbox` runs one; :mod:`.api_session`
is the Python API's sandboxed session. It imports the ``jvm`` layer (the Java runtime), ``session`` (results) and,
for the sandboxed session's child, the root's Python API (the layer test counts it with the root); the MCP server
and the Python API import it."""
