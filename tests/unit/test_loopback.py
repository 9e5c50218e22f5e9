"""Which addresses the kernel treats as loopback, where ipykernel's warning about unencrypted TCP is left out."""

from __future__ import annotations

import pytest
from kotlin_llm_kernel.jupyter.app import is_loopback


@pytest.mark.parametrize("host", ["127.0.0.1", "127.1.2.3", "::1", "localhost"])
def test_loopback_addresses(host: str) -> None:
    assert is_loopback(host)


@pytest.mark.parametrize("host", ["0.0.0.0", "10.0.0.5", "::", "kernel.example", ""])
def test_other_hosts_keep_the_warning(host: str) -> None:
    assert not is_loopback(host)
