"""Optional ahead-of-time compilation of the hottest rules modules with mypyc.

``pip install .`` builds the pure-Python package. With ``REFEREE_COMPILE=1`` in the environment
the modules listed in ``referee/rules/compiled.py`` are compiled to C extensions by mypyc (a C
compiler and the Python headers are needed); the build fails if they cannot be compiled, so an
image that asked for the compiled rules never silently gets the slower ones. Everything else
about the package is in ``pyproject.toml``.
"""

import os
import runpy

from setuptools import setup


def ext_modules() -> list:
    if os.environ.get("REFEREE_COMPILE", "0") in ("", "0"):
        return []
    from mypyc.build import mypycify

    modules = runpy.run_path(os.path.join("referee", "rules", "compiled.py"))["MODULES"]
    sources = [m.replace(".", "/") + ".py" for m in modules]
    return mypycify(sources, opt_level="3", group_name="trick_referee")


setup(ext_modules=ext_modules())
