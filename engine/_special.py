"""The normal distribution's CDF, from scipy, with a typed face (scipy ships no type hints)."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray
from scipy import special


def normal_cdf(z: NDArray[np.float64]) -> NDArray[np.float64]:
    """Phi(z): the chance that a standard normal number is below z."""
    return np.asarray(special.ndtr(z), dtype=np.float64)
