"""Privacy Studio: re-identification risk of behavioural datasets across generalization profiles."""

__version__ = "0.1.0"
