"""Sphinx configuration: furo, MyST for the Markdown pages, autodoc + napoleon for the API.

Every ``*.md`` page in this folder is a page of the site. ``index.md``'s toctree lists the
guide in reading order, one line per page, and ends with ``*``: the API reference (``api.md``)
and any page not listed yet, by name. Add a new page's line before the ``*``.
"""

from __future__ import annotations

from importlib.metadata import version as _version

project = "sycl_ocl"
author = "the sycl_ocl authors"
copyright = "the sycl_ocl authors"
release = _version("sycl_ocl")
version = release

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
]
source_suffix = {".md": "markdown"}
exclude_patterns = ["_build", "devices"]
myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3

autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_typehints_description_target = "documented"
autodoc_default_options = {"members": True, "undoc-members": False}
add_module_names = False
napoleon_google_docstring = True
napoleon_numpy_docstring = False

html_theme = "furo"
html_title = "sycl_ocl"
