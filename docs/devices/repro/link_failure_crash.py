"""Raw PyOpenCL: the process dies (SIGSEGV) at exit after a clLinkProgram that failed.

The link fails as OpenCL requires (CL_LINK_PROGRAM_FAILURE: a kernel calls a function no object
defines); Intel's CPU runtime 2026.2 then crashes when it unloads at exit ("PLEASE submit a bug
report to https://software.intel.com/..."). PoCL 3.1 exits cleanly. The link runs in a child
interpreter, whose exit status is checked.

    python link_failure_crash.py [PLATFORM_SUBSTRING]   (default: every platform)

Exit status 1 while a platform shows the defect, 0 when none does.
"""

import subprocess
import sys

import pyopencl as cl

CHILD = """
import sys
import pyopencl as cl
SOURCE = "int missing(int x);\\n__kernel void caller(__global int *d) { d[0] = missing(1); }\\n"
platform = cl.get_platforms()[int(sys.argv[1])]
context = cl.Context([platform.get_devices()[0]])
objects = cl.Program(context, SOURCE).compile("")
try:
    cl.link_program(context, [objects], "")
    print("linked a program with an undefined function", end="")
except cl.Error as error:
    print(f"the link failed as required ({error.code})", end="")
"""

wanted = sys.argv[1] if len(sys.argv) > 1 else ""
defective = False
for index, platform in enumerate(cl.get_platforms()):
    if wanted not in platform.name:
        continue
    done = subprocess.run([sys.executable, "-c", CHILD, str(index)], capture_output=True, text=True)
    crashed = done.returncode < 0
    defective |= crashed
    print(f"{platform.name}: {done.stdout.strip()}; the process exited with status {done.returncode}"
          + (" (killed by a signal at exit)" if crashed else ""))
sys.exit(1 if defective else 0)
