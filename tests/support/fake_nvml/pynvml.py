"""A stand-in for nvidia-ml-py's pynvml that replays a recorded NVML answer.

The answer is the JSON file named by ENVKIT_TEST_NVML_ANSWER: {"driver", "cuda_driver_version",
"gpus": [{"name", "cc": [major, minor], "memory"}]} - what the real calls returned on that machine.
"""

import json
import os

_answer = None


class NVMLError(Exception):
    pass


class _Memory:
    def __init__(self, total):
        self.total = total


def nvmlInit():
    global _answer
    path = os.environ.get("ENVKIT_TEST_NVML_ANSWER")
    if not path:
        raise NVMLError("NVML Shared Library Not Found")
    with open(path) as fh:
        _answer = json.load(fh)


def nvmlShutdown():
    pass


def nvmlSystemGetDriverVersion():
    return _answer["driver"]


def nvmlSystemGetCudaDriverVersion():
    return _answer["cuda_driver_version"]


def nvmlDeviceGetCount():
    return len(_answer["gpus"])


def nvmlDeviceGetHandleByIndex(i):
    return _answer["gpus"][i]


def nvmlDeviceGetName(h):
    return h["name"]


def nvmlDeviceGetCudaComputeCapability(h):
    return tuple(h["cc"])


def nvmlDeviceGetMemoryInfo(h):
    return _Memory(h["memory"])
