"""Warm spares: kernel processes started before anyone asks, which a kernel start takes over.

A start (``python -m kotlin_llm_kernel -f FILE``, the plain kernelspec's command, so every client is served) claims a
ready spare of its kind from a per-user pool directory (:mod:`.pool`) by an atomic rename (:mod:`.claim`) and stays
as the client's process while the spare serves; a spare (:mod:`.spare`) is the same kernel command started detached
by :mod:`.spawn`, which warmed its JVM, session and completion and waits on a socket, then binds the client's ports.
A start matches a spare on everything the kernel fixes when it starts (:mod:`.request`). Beside the layers as the
package's root: it may import any layer; only the root imports it.
"""
