"""The scheduler: turns command groups into OpenCL commands in dependency order."""

from .lane import Lane
from .submit import lane_for, submit

__all__ = ["Lane", "lane_for", "submit"]
