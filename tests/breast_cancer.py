"""scikit-learn's breast-cancer data and the feature ranges its description publishes."""
import re

import numpy as np
from sklearn.datasets import load_breast_cancer


def documented_ranges():
    """``(low, high)``: each feature's minimum and maximum as the dataset's description
    (``DESCR``, its summary-statistics table) states them, in the order of the columns; the
    public ranges a :class:`~dplasso.data.PublicRangeScaler` takes in the tests."""
    rows = re.findall(r"^[a-z ]+\([a-z ]+\):\s+([\d.]+)\s+([\d.]+)\s*$",
                      load_breast_cancer().DESCR, re.MULTILINE)
    assert len(rows) == 30
    return np.array(rows, dtype=float).T
