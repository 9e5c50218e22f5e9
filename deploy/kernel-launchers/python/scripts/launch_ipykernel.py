"""The Python launcher slot of gateway_provisioners' bootstrap-kernel.sh, which runs
``python ${KERNEL_LAUNCHERS_DIR}/python/scripts/launch_ipykernel.py --kernel-id … --response-address … …`` for a
kernelspec of language Python. The image sets KERNEL_LAUNCHERS_DIR to the directory holding this file, so those
arguments start the kernel's own launcher (the stock one cannot run this kernel's application)."""

from kotlin_llm_kernel.remote.launcher import main

main()
