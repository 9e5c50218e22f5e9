"""Warm spares: kernels started before anyone asks, handed to a start request by a kernel provisioner.

A spare is started by a detached spawner (:mod:`.spawner`, its own session, no ``JPY_PARENT_PID``), which warms it,
publishes it in a per-user pool directory (:mod:`.pool`) and watches it: an unclaimed spare ends after its idle time,
a claimed one when its owner is gone. The provisioner (:mod:`.provisioner`) claims a spare whose request matches
(:mod:`.request`) by an atomic rename, or starts the kernel cold. Beside the layers as the package's root: it may
import any layer; only the root (``python -m kotlin_llm_kernel pool``) imports it.
"""
