"""Preprocess a loaded dataset into the project's data domain ``||x_i||_inf <= 1``, or map
features with public ranges into it (:func:`map_public_ranges`, :class:`PublicRangeScaler`).

pandas is imported by the functions that read a :class:`~dplasso.data.openml.RawDataset`
(whose labels are a pandas Series), so the public-range map needs only the core install.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse
from sklearn.base import BaseEstimator, OneToOneFeatureMixin, TransformerMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from dplasso.data.openml import RawDataset

SCALINGS = ("max-abs", "standard")
"""Maps of numeric features into ``[-1, 1]`` (:func:`preprocess`)."""

STANDARD_CLIP_Z = 3.0
r"""Clip level :math:`z` of the ``"standard"`` map, in standard deviations: a Gaussian feature
is clipped in 0.27% of rows, a heavy-tailed one (counts, frequencies) keeps its bulk spread
over :math:`[-1, 1]` instead of being squeezed near 0 by its largest value. Fixed in advance
(the conventional three-sigma rule), not tuned on any dataset."""


@dataclass(frozen=True, eq=False)
class Dataset:
    """A classification dataset in the project's data domain.

    Attributes
    ----------
    name : str
        Dataset name.
    id : int or None
        OpenML id (``None`` for data not from OpenML).
    X : ndarray of float64 or scipy.sparse.csr_matrix, shape (n, p)
        Features; every row satisfies ``||x_i||_inf <= 1``. No intercept column.
    y : ndarray of int64, shape (n,)
        Labels encoded ``0..C-1``: ``y[i] = k`` means the label ``classes[k]``.
    classes : ndarray, shape (C,)
        The distinct labels, sorted (``numpy.unique`` order; strings sort lexicographically).
    feature_names : tuple of str, length p
        Output columns: a numeric feature keeps its name, a one-hot column is ``"name=value"``.
    preprocessing : str
        What was done to this dataset, in words.
    n_features_raw : int
        Number of features before preprocessing (before one-hot encoding).
    """

    name: str
    id: int | None
    X: np.ndarray | scipy.sparse.csr_matrix
    y: np.ndarray
    classes: np.ndarray
    feature_names: tuple[str, ...]
    preprocessing: str
    n_features_raw: int

    @property
    def n_samples(self) -> int:
        """Number of rows ``n``."""
        return self.X.shape[0]

    @property
    def n_features(self) -> int:
        """Number of columns ``p`` after preprocessing."""
        return self.X.shape[1]

    @property
    def n_classes(self) -> int:
        """Number of classes ``C``."""
        return len(self.classes)

    @property
    def density(self) -> float:
        """Fraction of nonzero entries of ``X``."""
        nnz = self.X.count_nonzero() if scipy.sparse.issparse(self.X) else np.count_nonzero(self.X)
        return nnz / (self.n_samples * self.n_features)


def preprocess(raw: RawDataset, *, sparse: bool | None = None,
               scaling: str = "max-abs", fit_rows=None) -> Dataset:
    r"""Map a raw dataset to features with ``||x_i||_inf <= 1`` and labels ``0..C-1``.

    Parameters
    ----------
    raw : RawDataset
        As returned by :func:`dplasso.data.openml.load_openml`.
    sparse : bool or None, default=None
        Output format of ``X``: ``None`` keeps the input's (CSR for sparse input, ndarray
        otherwise), ``True`` gives CSR, ``False`` a dense ndarray.
    scaling : {"max-abs", "standard"}, default="max-abs"
        Map of the numeric features (below).
    fit_rows : array-like of int or None, default=None
        The rows whose per-feature summaries the map reads (a training split); None reads
        every row. The map is then applied to every row, and entries it sends outside
        ``[-1, 1]`` (rows not in ``fit_rows`` beyond the summaries' range) are clipped.

    Returns
    -------
    Dataset

    Raises
    ------
    ValueError
        If ``y`` has missing values, a single class or non-integer numbers (not class labels),
        if ``X`` and ``y`` disagree in length, if ``X`` holds infinity, a non-numeric column not
        flagged nominal, or (sparse input) a nominal feature.

    Notes
    -----
    Neighbouring relation: replace-one (:data:`dplasso.privacy.REPLACE_ONE`).

    Data domain produced: every row has ``||x_i||_inf <= 1`` (checked before returning). No
    intercept column is added here: estimators with ``fit_intercept=True`` append the constant
    feature 1 inside the same L1 ball (see ARCHITECTURE.md), the same for every method.

    Steps, column by column:

    * **Nominal feature** with ``k`` declared values: one-hot block of ``k`` columns in
      {0, 1}. A missing value gives an all-zero block. All declared values get a column, also
      values no row takes.
    * **Numeric feature** ``j``, ``scaling="max-abs"``: divided by ``m_j = max_i |x_ij|``
      (over the non-missing values of ``fit_rows``), so it lies in ``[-1, 1]`` (other rows
      are clipped to it) and zeros stay zeros (sparse input
      stays sparse, and a mostly-zero feature does not become a near-constant one as min-max
      scaling to ``[-1, 1]`` would make it). A column with ``m_j = 0`` stays all-zero and is
      kept.
    * **Numeric feature** ``j``, ``scaling="standard"``: standardised with the feature's mean
      :math:`\mu_j` and standard deviation :math:`\sigma_j` (over the non-missing values
      of ``fit_rows``),
      clipped to :math:`[-z, z]` and divided by :math:`z` (:data:`STANDARD_CLIP_Z`), so the
      bulk of a heavy-tailed feature is not squeezed near 0 by its largest value. Sparse
      input is only divided by :math:`z` times its root mean square over ``fit_rows`` (no
      centring, zeros stay zeros) and clipped. A constant column becomes all-zero.
    * **Missing numeric value** (NaN): set to 0 after scaling, the value at which the feature
      contributes nothing to ``<w, x_i>`` (the mean, for ``"standard"``). No row is dropped
      (arrhythmia has missing values in most rows).
    * **Labels**: ``classes`` are the labels present, sorted; ``y`` their positions.

    Privacy meaning. The one-hot layout and the missing-value rule depend only on the public
    schema (the ARFF header) and on the row itself. The scale ``m_j`` is computed from the
    data, so on its own this step is *not* differentially private: replacing one row can
    change ``m_j`` and with it every row's feature ``j``. We treat the feature ranges
    ``[-m_j, m_j]`` as public domain knowledge (the documented range of each measured
    quantity), and likewise the label set. Under that assumption ``x -> x / m`` is a fixed
    map applied to each row separately, so replace-one neighbours stay replace-one neighbours
    and the privacy guarantees of the methods run on the output hold for the raw data.
    openml gives no declared ranges offline, so the observed ranges stand in for them.
    ``"standard"`` assumes the same of each feature's location and spread
    :math:`(\mu_j, \sigma_j)` (published summary statistics of the measured quantity); the
    observed ones stand in for them, as the observed ranges do. With ``fit_rows`` the
    summaries are read from those rows only, so a test split evaluated on the map stays out
    of everything the model and its scaling saw.
    """
    if scaling not in SCALINGS:
        raise ValueError(f"scaling must be one of {SCALINGS}, got {scaling!r}")
    if not isinstance(raw, RawDataset):
        raise TypeError(f"raw must be a RawDataset, got {type(raw).__name__}")
    n = raw.X.shape[0]
    classes, y, label_note = _encode_labels(raw.y, n)
    rows = _check_fit_rows(fit_rows, n)
    if scipy.sparse.issparse(raw.X):
        X, feature_names, steps = _preprocess_sparse(raw, scaling, rows)
    else:
        X, feature_names, steps = _preprocess_frame(raw, scaling, rows)
    if fit_rows is not None:
        steps.append(f"map summaries read from {len(rows)} of {n} rows, the others clipped "
                     "to [-1, 1]")
    output_sparse = scipy.sparse.issparse(X) if sparse is None else bool(sparse)
    if output_sparse and not scipy.sparse.issparse(X):
        X = scipy.sparse.csr_matrix(X)
    elif not output_sparse and scipy.sparse.issparse(X):
        X = X.toarray()
    _assert_unit_rows(X)
    steps.append(label_note)
    steps.append("no intercept column")
    return Dataset(
        name=raw.name, id=raw.id, X=X, y=y, classes=classes, feature_names=feature_names,
        preprocessing="; ".join(steps), n_features_raw=raw.X.shape[1],
    )


def map_public_ranges(X, low, high) -> np.ndarray:
    """Map features with ranges known in advance into ``[-1, 1]``, clipping what falls outside.

    Feature ``j`` goes from ``[low[j], high[j]]`` to ``[-1, 1]`` by
    ``2 (x - low) / (high - low) - 1``, then is clipped to ``[-1, 1]``. Nothing is read from
    ``X``: with ranges fixed before the data are seen (a data dictionary, a sensor's
    specification), the map is the same for every dataset and applied to each row alone, so
    replace-one neighbours stay neighbours and a private fit on the output keeps its
    guarantee for the raw rows. :class:`PublicRangeScaler` is this map as a scikit-learn
    transformer.

    Parameters
    ----------
    X : array-like of shape (n, p)
        Numeric features, finite.
    low, high : float or array-like of shape (p,)
        The public ranges, ``low < high`` (a number is the range of every column).

    Returns
    -------
    ndarray of float64 of shape (n, p)
        Rows with ``||x_i||_inf <= 1``.
    """
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError(f"X must be two-dimensional, got {X.ndim} dimension(s)")
    low, high = _public_ranges(low, high, X.shape[1])
    if not np.isfinite(X).all():
        raise ValueError("X contains NaN or infinity")
    return np.clip(2.0 * (X - low) / (high - low) - 1.0, -1.0, 1.0)


def _public_ranges(low, high, n_features):
    """``(low, high)`` as float64 arrays of shape ``(n_features,)``, checked."""
    low = np.asarray(low, dtype=np.float64)
    high = np.asarray(high, dtype=np.float64)
    if {low.shape, high.shape} - {(), (n_features,)}:
        raise ValueError(f"low and high must each be a number or hold one bound per column of "
                         f"X ({n_features}), got shapes {low.shape} and {high.shape}")
    if not (np.isfinite(low).all() and np.isfinite(high).all() and np.all(low < high)):
        raise ValueError("low and high must be finite with low < high in every column")
    return np.broadcast_to(low, (n_features,)), np.broadcast_to(high, (n_features,))


class PublicRangeScaler(OneToOneFeatureMixin, TransformerMixin, BaseEstimator):
    """Scale features into ``[-1, 1]`` by ranges known in advance: the estimators' data domain.

    The transformer form of :func:`map_public_ranges`: feature ``j`` goes from
    ``[low[j], high[j]]`` to ``[-1, 1]`` by ``2 (x - low) / (high - low) - 1`` and is clipped
    to ``[-1, 1]``. ``fit`` reads nothing from ``X`` but its number of columns (and checks
    it): the map is fixed before the data are seen and applied to each row alone, so in a
    pipeline before a private estimator the estimator's guarantee holds for the raw rows. A
    scaler fitted on the private rows (``MinMaxScaler``, ``StandardScaler``) instead
    releases their minima, maxima or moments, which no guarantee covers.

    Parameters
    ----------
    low, high : float or array-like of shape (n_features,)
        The public range of each feature (a number: the same range for every feature),
        finite, ``low < high``; chosen without looking at the data (a data dictionary, a
        sensor's specification).

    Attributes
    ----------
    low_, high_ : ndarray of shape (n_features_in_,)
        The ranges, one per feature.
    n_features_in_ : int
        Number of features seen in ``fit``.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Feature names, when ``X`` has string column names.

    Examples
    --------
    >>> from dplasso.data import PublicRangeScaler
    >>> PublicRangeScaler(low=[0, 0], high=[10, 100]).fit_transform([[5, 0], [20, 50]])
    array([[ 0., -1.],
           [ 1.,  0.]])
    """

    def __init__(self, low, high):
        self.low = low
        self.high = high

    def fit(self, X, y=None):
        """Check ``X`` and the ranges; nothing is read from ``X``'s values.

        Parameters
        ----------
        X : array-like of shape (n, n_features)
            Numeric features, finite.
        y : None
            Ignored.

        Returns
        -------
        self

        Raises
        ------
        ValueError
            If ``X`` is not a finite numeric matrix, or ``low``/``high`` are not finite
            numbers or ``n_features`` of them with ``low < high``.
        """
        X = validate_data(self, X, dtype=np.float64)
        low, high = _public_ranges(self.low, self.high, X.shape[1])
        self.low_, self.high_ = low.copy(), high.copy()
        return self

    def transform(self, X):
        """Rows mapped into ``[-1, 1]`` (a new float64 array).

        Raises
        ------
        ValueError
            If ``X`` is not a finite numeric matrix with the columns seen in ``fit``.
        """
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return map_public_ranges(X, self.low_, self.high_)


def _encode_labels(y, n: int) -> tuple[np.ndarray, np.ndarray, str]:
    import pandas as pd

    y = y if isinstance(y, pd.Series) else pd.Series(np.asarray(y))
    if y.shape != (n,):
        raise ValueError(f"y must have one label per row of X ({n}), got shape {y.shape}")
    missing = np.flatnonzero(y.isna().to_numpy())
    if missing.size:
        raise ValueError(
            f"y has {missing.size} missing labels (first at row {missing[0]}); "
            "drop or label those rows before preprocessing"
        )
    if pd.api.types.is_float_dtype(y.dtype) and not np.all(np.mod(y.to_numpy(), 1) == 0):
        raise ValueError(
            "y holds non-integer numbers, not class labels: is the target right? "
            "preprocess is for classification targets"
        )
    numeric = pd.api.types.is_numeric_dtype(y.dtype) and not isinstance(
        y.dtype, pd.CategoricalDtype)
    values = y.to_numpy() if numeric else y.astype(str).to_numpy()
    classes, codes = np.unique(values, return_inverse=True)
    if classes.size < 2:
        raise ValueError(
            f"y has {classes.size} distinct label(s) {classes.tolist()}; need at least two classes"
        )
    note = f"labels: {classes.size} classes sorted, encoded 0..{classes.size - 1}"
    return classes, codes.astype(np.int64), note


def _check_fit_rows(fit_rows, n: int):
    """The rows the map's summaries are read from: ``slice(None)`` (all) or ``fit_rows``
    (distinct, in range)."""
    if fit_rows is None:
        return slice(None)
    rows = np.asarray(fit_rows)
    if rows.ndim != 1 or rows.size == 0 or rows.dtype.kind not in "iu":
        raise ValueError("fit_rows must be a non-empty one-dimensional array of row indices")
    if rows.min() < 0 or rows.max() >= n or np.unique(rows).size != rows.size:
        raise ValueError(f"fit_rows must hold distinct row indices in [0, {n}), got "
                         f"{rows.size} indices in [{rows.min()}, {rows.max()}]")
    return rows


def _preprocess_frame(raw: RawDataset, scaling: str, rows):
    import pandas as pd

    frame = raw.X
    flags = np.asarray(raw.categorical, dtype=bool)
    if flags.shape != (frame.shape[1],):
        raise ValueError(
            f"categorical must have one flag per column of X ({frame.shape[1]}), "
            f"got {flags.shape[0]}"
        )
    columns = list(frame.columns)
    nominal = [c for c, f in zip(columns, flags) if f]
    numeric = [c for c, f in zip(columns, flags) if not f]
    not_numeric = [c for c in numeric if not (pd.api.types.is_numeric_dtype(frame[c].dtype)
                                              or pd.api.types.is_bool_dtype(frame[c].dtype))]
    if not_numeric:
        raise ValueError(
            f"column {not_numeric[0]!r} is neither numeric nor flagged nominal in categorical"
        )
    # Declared categories for category columns; sorted observed values otherwise.
    cats = [frame[c].astype("category").cat for c in nominal]
    n = frame.shape[0]

    values = frame[numeric].to_numpy(dtype=np.float64, na_value=np.nan)
    missing = np.isnan(values)
    if np.isinf(values).any():
        col = numeric[int(np.flatnonzero(np.isinf(values).any(axis=0))[0])]
        raise ValueError(f"X contains infinity (column {col!r})")
    if scaling == "standard":
        scaled, scale, note = _standardise(values, missing, rows)
    else:
        filled = np.where(missing, 0.0, values)
        scale = np.abs(filled[rows]).max(axis=0, initial=0.0)
        scaled = np.clip(filled / np.where(scale > 0, scale, 1.0), -1.0, 1.0)
        note = "scaled by their max |x_j| (zeros stay zero"

    widths = np.ones(len(columns), dtype=np.int64)
    widths[flags] = [len(cat.categories) for cat in cats]
    starts = np.concatenate(([0], np.cumsum(widths)[:-1]))
    out = np.zeros((n, int(widths.sum())))
    out[:, starts[~flags]] = scaled
    if nominal:
        codes = np.column_stack([cat.codes.to_numpy() for cat in cats])  # -1 marks missing
        rows, which = np.nonzero(codes >= 0)
        out[rows, starts[flags][which] + codes[rows, which]] = 1.0

    values_of = {c: cat.categories for c, cat in zip(nominal, cats)}
    names = [
        name
        for c in columns
        for name in ([f"{c}={v}" for v in values_of[c]] if c in values_of else [str(c)])
    ]

    steps = [f"{n} rows, {len(columns)} features -> {out.shape[1]} columns"]
    if numeric:
        steps.append(
            f"numeric: {len(numeric)} features {note}; "
            f"{int(np.sum(scale == 0))} all-zero columns kept)"
        )
    if missing.any():
        steps.append(
            f"missing numeric: {int(missing.sum())} values in {int(missing.any(axis=1).sum())} "
            "rows set to 0 after scaling"
        )
    if nominal:
        n_missing = int((codes < 0).sum())
        steps.append(
            f"nominal: {len(nominal)} features one-hot over their declared values -> "
            f"{int(widths[flags].sum())} columns ({n_missing} missing values -> all-zero block)"
        )
    return out, tuple(names), steps


def _standardise(values, missing, rows):
    """``(scaled, spread, note)``: ``clip((x - mean) / sd, -z, z) / z``, missing -> 0; the
    mean and sd are read from ``rows``."""
    fitted = np.where(missing, np.nan, values)[rows]
    mean = np.nanmean(fitted, axis=0) if fitted.size else np.zeros(values.shape[1])
    mean = np.where(np.isnan(mean), 0.0, mean)
    observed = np.maximum((~missing[rows]).sum(axis=0), 1)
    centred = np.where(missing, 0.0, values - mean)
    spread = np.sqrt((centred[rows]**2).sum(axis=0) / observed)
    z = STANDARD_CLIP_Z
    scaled = np.clip(centred / np.where(spread > 0, spread, 1.0), -z, z) / z
    return scaled, spread, f"standardised, clipped at {z:g} sd and divided by {z:g} (missing -> mean"


def _preprocess_sparse(raw: RawDataset, scaling: str, rows):
    if any(raw.categorical):
        raise ValueError("sparse X with nominal features is not supported; one-hot them first")
    X = scipy.sparse.csr_matrix(raw.X, dtype=np.float64, copy=True)
    X.sum_duplicates()
    if np.isinf(X.data).any():
        raise ValueError("X contains infinity")
    missing = np.isnan(X.data)
    X.data[missing] = 0.0
    X.eliminate_zeros()
    if scaling == "standard":
        z = STANDARD_CLIP_Z
        fitted = X[rows]
        scale = np.sqrt(np.asarray(fitted.multiply(fitted).mean(axis=0)).ravel())
        X.data = np.clip(X.data / (z * np.where(scale > 0, scale, 1.0)[X.indices]), -1.0, 1.0)
        note = f"divided by {z:g} x their root mean square and clipped (zeros stay zero"
    else:
        scale = abs(X[rows]).max(axis=0).toarray().ravel()
        X.data = np.clip(X.data / np.where(scale > 0, scale, 1.0)[X.indices], -1.0, 1.0)
        note = "scaled by their max |x_j| (zeros stay zero"
    steps = [
        f"{X.shape[0]} rows, {X.shape[1]} features (sparse, kept sparse)",
        f"numeric: {X.shape[1]} features {note}; "
        f"{int(np.sum(scale == 0))} all-zero columns kept)",
    ]
    if missing.any():
        steps.append(f"missing numeric: {int(missing.sum())} values set to 0")
    return X, tuple(raw.feature_names), steps


def _assert_unit_rows(X) -> None:
    """Final contract check: finite entries and ``||x_i||_inf <= 1`` on every row."""
    if scipy.sparse.issparse(X):
        row_max = abs(X).max(axis=1).toarray().ravel()
        finite = np.isfinite(X.data).all()
    else:
        row_max = np.abs(X).max(axis=1, initial=0.0)
        finite = np.isfinite(X).all()
    bad = np.flatnonzero(~(row_max <= 1.0))
    if not finite or bad.size:
        raise AssertionError(
            f"preprocessing broke ||x_i||_inf <= 1 (first offending row {bad[:1]}, "
            f"finite entries: {finite})"
        )
