"""Build hook: the rules engine compiled with mypyc when asked, else pure Python (the default).

`LOVELET_COMPILE=1 pip install --no-build-isolation .` (with `mypy` and a C compiler present)
builds the engine's inner-loop modules as C extensions, about twice as fast in playouts (see
docs/engine.md, Speed); any other install, editable ones included, stays pure Python and needs
no compiler. See docs/self-hosting.md.
"""

import os

from setuptools import setup

COMPILED = [  # the modules of the engine's inner loop (see benchmarks/engine.py)
    "server/engine/cards.py",
    "server/engine/edition.py",
    "server/engine/effects.py",
    "server/engine/game.py",
    "server/engine/legal.py",
]

ext_modules = []
if os.environ.get("LOVELET_COMPILE") == "1":
    from mypyc.build import mypycify

    ext_modules = mypycify(COMPILED, opt_level="3")

setup(ext_modules=ext_modules)
