"""A small launcher process: reads one JSON request (argv, variables to unset) per line, runs it,
answers one JSON line with its exit code, wall time, CPU time and peak RSS.  Why: on Linux a
child's ru_maxrss includes the resident size of the process it was forked from (recorded at
exec), so children forked straight from the bench (hundreds of MiB of generated data) would all
report the bench's own size."""

import json
import os
import subprocess
import sys
import time

for line in sys.stdin:
    req = json.loads(line)  # {"argv": [...], "unset": [names of variables the child must not see]}
    env = {k: v for k, v in os.environ.items() if k not in req["unset"]}
    t0 = time.perf_counter()
    child = subprocess.Popen(req["argv"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    _, status, ru = os.wait4(child.pid, 0)
    wall = time.perf_counter() - t0
    print(
        json.dumps([os.waitstatus_to_exitcode(status), wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss]),
        flush=True,
    )
