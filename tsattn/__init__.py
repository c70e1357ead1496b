"""tsattn: time-series transformers whose attention mechanism is a choice.

>>> from tsattn import TSClassifier, list_attention
>>> list_attention()  # doctest: +SKIP
['bn', 'bn_sh', 'sh', 'softmax', ...]
>>> TSClassifier(attention="bn_sh").fit(X, y).predict(X_test)  # doctest: +SKIP
"""

from tsattn.attention import build_attention, list_attention
from tsattn.estimators import TSClassifier, TSForecaster, TSRegressor

__version__ = "0.1.0"

__all__ = ["TSClassifier", "TSRegressor", "TSForecaster", "build_attention", "list_attention", "__version__"]
