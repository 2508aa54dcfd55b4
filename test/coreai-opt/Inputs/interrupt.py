"""interrupt.py SIGNAL SECONDS DIR -- COMMAND...

Starts COMMAND, lets it run SECONDS, prints `while running: ENTRIES` (the
entries of DIR at that moment), sends it SIGNAL (TERM, INT, HUP), waits for
it and prints `ended by SIGNAL` or `exit status N`, then `after: ENTRIES`."""

import os
import signal
import subprocess
import sys
import time

name, seconds, folder, sep, *command = sys.argv[1:]
assert sep == "--", "usage: interrupt.py SIGNAL SECONDS DIR -- COMMAND..."
p = subprocess.Popen(command, stderr=subprocess.PIPE)
time.sleep(float(seconds))
print("while running:", " ".join(sorted(os.listdir(folder))) or "(none)")
assert p.poll() is None, "the command ended before the signal"
p.send_signal(getattr(signal, "SIG" + name))
code = p.wait(timeout=60)
sys.stderr.write(p.stderr.read().decode())
print(f"ended by SIG{signal.Signals(-code).name[3:]}" if code < 0 else f"exit status {code}")
print("after:", " ".join(sorted(os.listdir(folder))) or "(none)")
