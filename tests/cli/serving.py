"""Running ``unoduo serve`` as a real process in tests."""

from __future__ import annotations

import signal
import subprocess


def stop(process: subprocess.Popen[str]) -> str:
    process.send_signal(signal.SIGINT)
    try:
        output, _ = process.communicate(timeout=15)
    except subprocess.TimeoutExpired:
        process.kill()
        output, _ = process.communicate()
        raise AssertionError(f"the server did not stop on Ctrl-C:\n{output}") from None
    assert process.returncode == 0, output
    return output
