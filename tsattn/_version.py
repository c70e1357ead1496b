"""The version of tsattn, declared here only: ``pyproject.toml`` reads it (setuptools' dynamic
``version``), ``tsattn.__version__`` imports it, and saved models record it."""

__version__ = "0.1.0"
