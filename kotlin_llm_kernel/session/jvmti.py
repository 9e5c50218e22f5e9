"""Stopping a thread of the embedded JVM with the JVM tool interface's ``StopThread``, through ctypes.

A snippet stuck in a loop of JDK or library code ignores interrupts, and ``Thread.stop`` is gone from JDK 20 on.
``StopThread`` (what debuggers use) still throws an error into such a thread on every JDK, and code already in the
process reaches it without an agent, a debug port or native code of ours: ``JNI_GetCreatedJavaVMs`` of the loaded
``libjvm``, ``GetEnv`` for a JVMTI environment, the ``can_signal_thread`` capability. The thread and the error come
from the engine's ``host.StopTarget`` static fields, read with JNI, as JPype hands out no raw references.

The function tables' slots are fixed by the JNI and JVMTI specifications. Every call must come from a thread
attached to the JVM (any Python thread that has called Java through JPype).
"""

from __future__ import annotations

import ctypes
import logging
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

JNI_OK = 0
JNI_VERSION_1_8 = 0x00010008
JVMTI_VERSION_1_2 = 0x30010200
#: ``can_signal_thread`` is the 11th bit of ``jvmtiCapabilities`` (a bit field, least significant bit first on the
#: x86-64 and aarch64 C ABIs).
CAN_SIGNAL_THREAD = 1 << 10

# slots of the JNI invocation interface, the JNI function table and the JVMTI function table
_VM_GET_ENV = 6
_JNI_FIND_CLASS = 6
_JNI_EXCEPTION_CLEAR = 17
_JNI_PUSH_LOCAL_FRAME = 19
_JNI_POP_LOCAL_FRAME = 20
_JNI_GET_STATIC_FIELD_ID = 144
_JNI_GET_STATIC_OBJECT_FIELD = 145
_TI_STOP_THREAD = 6
_TI_ADD_CAPABILITIES = 141

#: The engine class whose static fields name the thread to stop and the error to throw in it.
TARGET_CLASS = b"org/kotlinllm/script/host/StopTarget"

_pointer = ctypes.c_void_p


class StopUnavailable(RuntimeError):
    """This JVM offers no way to stop a thread (another JVM than HotSpot, a missing capability, a JNI failure)."""


def _function(table_owner: Any, slot: int, restype: Any, *argtypes: Any) -> Callable[..., Any]:
    """Function ``slot`` of the table that ``table_owner`` (a ``JavaVM*``, ``JNIEnv*`` or ``jvmtiEnv*``) points to."""
    table = ctypes.cast(table_owner, ctypes.POINTER(_pointer))[0]
    address = ctypes.cast(table, ctypes.POINTER(_pointer))[slot]
    return ctypes.CFUNCTYPE(restype, *argtypes)(address)


class ThreadStopper:
    """``StopThread`` of the JVM loaded from ``libjvm``, which must already run in this process."""

    def __init__(self, libjvm: Path) -> None:
        # RTLD_NOLOAD: the library JPype loaded, never a second copy
        library = ctypes.CDLL(str(libjvm), mode=os.RTLD_NOLOAD | os.RTLD_LAZY)
        get_vms = library.JNI_GetCreatedJavaVMs
        get_vms.argtypes = [ctypes.POINTER(_pointer), ctypes.c_int, ctypes.POINTER(ctypes.c_int)]
        get_vms.restype = ctypes.c_int
        vms, count = (_pointer * 1)(), ctypes.c_int(0)
        if get_vms(vms, 1, ctypes.byref(count)) != JNI_OK or count.value != 1:
            raise StopUnavailable("no running JVM found in this process")
        self._vm = vms[0]
        self._ti = self._env(JVMTI_VERSION_1_2)
        capabilities = (ctypes.c_uint32 * 4)(CAN_SIGNAL_THREAD, 0, 0, 0)
        error = _function(self._ti, _TI_ADD_CAPABILITIES, ctypes.c_int, _pointer, _pointer)(self._ti, capabilities)
        if error:
            raise StopUnavailable(f"the JVM refused the capability to stop threads (JVMTI error {error})")
        self._stop = _function(self._ti, _TI_STOP_THREAD, ctypes.c_int, _pointer, _pointer, _pointer)

    def _env(self, version: int) -> Any:
        env = _pointer()
        get_env = _function(self._vm, _VM_GET_ENV, ctypes.c_int, _pointer, ctypes.POINTER(_pointer), ctypes.c_int)
        result = get_env(self._vm, ctypes.byref(env), version)
        if result != JNI_OK:
            raise StopUnavailable(f"GetEnv({version:#x}) failed with {result} (-2: this thread is not attached)")
        return env

    def stop_target(self) -> None:
        """Throws ``StopTarget.error`` into ``StopTarget.thread``; raises :class:`StopUnavailable` if it could not."""
        env = self._env(JNI_VERSION_1_8)
        _function(env, _JNI_PUSH_LOCAL_FRAME, ctypes.c_int, _pointer, ctypes.c_int)(env, 4)
        try:
            find_class = _function(env, _JNI_FIND_CLASS, _pointer, _pointer, ctypes.c_char_p)
            target = find_class(env, TARGET_CLASS)
            if not target:
                _function(env, _JNI_EXCEPTION_CLEAR, None, _pointer)(env)
                raise StopUnavailable(f"the engine class {TARGET_CLASS.decode()} was not found")
            field = _function(
                env, _JNI_GET_STATIC_FIELD_ID, _pointer, _pointer, _pointer, ctypes.c_char_p, ctypes.c_char_p
            )
            read = _function(env, _JNI_GET_STATIC_OBJECT_FIELD, _pointer, _pointer, _pointer, _pointer)
            thread = read(env, target, field(env, target, b"thread", b"Ljava/lang/Thread;"))
            error = read(env, target, field(env, target, b"error", b"Ljava/lang/Throwable;"))
            if not thread or not error:
                raise StopUnavailable("no thread to stop was prepared")
            if (result := self._stop(self._ti, thread, error)) != 0:
                raise StopUnavailable(f"StopThread failed with JVMTI error {result}")
        finally:
            _function(env, _JNI_POP_LOCAL_FRAME, _pointer, _pointer, _pointer)(env, None)


_lock = threading.Lock()
_stoppers: dict[Path, ThreadStopper | None] = {}


def stopper_for(libjvm: Path) -> ThreadStopper | None:
    """The process's stopper for the running JVM, built once; None (logged once) where threads cannot be stopped.

    The calling thread must be attached to the JVM (have called Java): HotSpot's ``GetEnv`` crashes on others.
    """
    with _lock:
        if libjvm not in _stoppers:
            try:
                _stoppers[libjvm] = ThreadStopper(libjvm)
            except (OSError, AttributeError, StopUnavailable) as error:
                log.warning("snippets stuck in library code cannot be stopped: %s", error)
                _stoppers[libjvm] = None
        return _stoppers[libjvm]
