"""The kernel as a remote provisioner starts it (Jupyter Enterprise Gateway, gateway_provisioners): the launcher
that takes the place of their Python one, and the protocol it speaks with the provisioner. At the side of the
layers: it may import ``jupyter``, ``session``, ``config`` and ``jvm``, and nothing in the package imports it."""
