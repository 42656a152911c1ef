"""Quick start: pick the default device and run a host task and a kernel on it."""

from __future__ import annotations

import sycl_ocl as sycl


def main() -> None:
    q = sycl.queue()
    dev = q.get_device()
    print(f"Running on {dev.get_info(sycl.info.device.name)} "
          f"({dev.get_platform().get_info(sycl.info.platform.name)})")
    done = q.submit(lambda h: h.host_task(lambda: print("hello from a host task")))
    done.wait_and_throw()
    print("quickstart finished")


if __name__ == "__main__":
    main()
