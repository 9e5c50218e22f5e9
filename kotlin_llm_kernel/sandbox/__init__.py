"""The sandbox: a session's process run under bubblewrap as a dedicated non-root user, with the system read-only, a
workspace, an empty home, an environment allowlist, process and file limits and, for the network, an allowlisting
proxy outside (:mod:`.egress`). :mod:`.layout` says what the sandbox holds, :mod:`.bwrap` builds its command line,
:mod:`.host` checks what the machine must provide and :mod:`.sandbox` runs one. It imports the ``jvm`` layer (where
the Java runtime is) and nothing above it; the MCP server and the Python API import it."""
