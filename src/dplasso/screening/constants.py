r"""Bounds on the scalar loss that the screening rule and its sensitivity use.

The screening rule works with :math:`f(z) = \frac1n \sum_{k=1}^n \ell(z_k; y_k)` as a
function of the linear predictor :math:`z = Xw \in \mathbb R^n` (not of ``w``). Its Hessian
is :math:`\mathrm{diag}(\ell''(z_k; y_k))/n`, so its smoothness and strong convexity are
bounds on :math:`\ell''` divided by ``n`` (the mean over rows).

On the feasible set :math:`\|w\|_1 \le \lambda`, with rows in the project's data domain
:math:`\|x_k\|_\infty \le 1`, every predictor satisfies
:math:`|z_k| \le \|x_k\|_\infty \|w\|_1 \le \lambda`. Then

- logistic, :math:`\ell(z; y) = \log(1+e^z) - yz`, :math:`y \in \{0,1\}`:
  :math:`\ell'' = \sigma'(z) = \sigma(z)(1-\sigma(z))`, so :math:`\sup \ell'' = 1/4` and
  :math:`\inf_{|z| \le \lambda} \ell'' = \sigma'(\lambda)`; the residual
  :math:`|\sigma(z) - y| \le \sigma(|z|) \le \sigma(\lambda)`; the value
  :math:`0 \le \ell \le \log(1 + e^{\lambda})`; the product
  :math:`\ell'(z;y)\,z = t\,\sigma(t)` with :math:`t = \pm z` (``+`` for ``y = 0``), and
  :math:`t\sigma(t)` on :math:`[-\lambda, \lambda]` ranges from
  :math:`-W(1/e) \approx -0.2785` (at :math:`t = -1 - W(1/e)`, Lambert ``W``; or
  :math:`-\lambda\sigma(-\lambda)` if :math:`\lambda < 1 + W(1/e)`) to
  :math:`\lambda\sigma(\lambda)`;
- squared, :math:`\ell(z; y) = (z-y)^2/2`, :math:`|y| \le y_{\max}`: :math:`\ell'' = 1`; the
  residual :math:`|z - y| \le \lambda + y_{\max}`; the value
  :math:`0 \le \ell \le (\lambda + y_{\max})^2/2`; the product
  :math:`(z - y)z` ranges from :math:`-y_{\max}^2/4` (at :math:`z = y/2`; or
  :math:`\lambda^2 - \lambda y_{\max}` if :math:`y_{\max} > 2\lambda`) to
  :math:`\lambda^2 + \lambda y_{\max}`.

(The logistic residual bound :math:`\sigma(\lambda) < 1` is slightly tighter than the
constant 1 of Talwar et al. that :meth:`LogisticLoss.gradient_sup_bound` returns.)
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import expit, lambertw

from dplasso.optim.losses import LogisticLoss, SquaredLoss
from dplasso.optim.validation import check_lam

__all__ = ["Curvature", "LossRange", "check_screening_loss", "curvature", "loss_range"]


def check_screening_loss(loss):
    """Raise ``TypeError`` unless ``loss`` is a :class:`LogisticLoss` or :class:`SquaredLoss`."""
    if not isinstance(loss, (LogisticLoss, SquaredLoss)):
        raise TypeError(
            "screening supports LogisticLoss and SquaredLoss from dplasso.optim.losses, "
            f"got {type(loss).__name__}"
        )


@dataclass(frozen=True)
class Curvature:
    r"""Bounds on :math:`\ell''`: its global maximum and its minimum on :math:`|z| \le \lambda`."""

    maximum: float
    minimum: float

    def smoothness(self, n_samples):
        r"""Smoothness :math:`L = \sup \ell''/n` of ``f`` on all of :math:`\mathbb R^n`."""
        return self.maximum / n_samples

    def strong_convexity(self, n_samples):
        r"""Strong convexity :math:`\mu = \inf_{|z|\le\lambda} \ell''/n` of ``f`` on the feasible image."""
        return self.minimum / n_samples


@dataclass(frozen=True)
class LossRange:
    r"""Ranges of the loss over predictors :math:`|z| \le \lambda` and the label domain.

    Attributes
    ----------
    residual : float
        :math:`\sup |\ell'(z;y)|`.
    value : float
        :math:`\sup \ell(z;y)` (every loss here is ``>= 0``).
    product_min, product_max : float
        :math:`\inf` and :math:`\sup` of :math:`\ell'(z;y)\,z`, the per-row term of
        :math:`\langle \nabla F(w), w\rangle = \frac1n\sum_k \ell'(z_k;y_k) z_k`.
    """

    residual: float
    value: float
    product_min: float
    product_max: float


def curvature(loss, lam):
    r"""Return the :class:`Curvature` of ``loss`` on predictors :math:`|z| \le \lambda`.

    Parameters
    ----------
    loss : LogisticLoss or SquaredLoss
        A loss from :mod:`dplasso.optim.losses`.
    lam : float
        Radius of the L1 ball (a constraint radius, not a penalty weight), ``> 0``.

    Returns
    -------
    Curvature

    Raises
    ------
    TypeError
        If ``loss`` is not a logistic or squared loss (no screening rule for multinomial).
    ValueError
        If ``lam`` is not a finite number ``> 0``.
    """
    check_screening_loss(loss)
    lam = check_lam(lam)
    if isinstance(loss, LogisticLoss):
        sig = float(expit(lam))
        return Curvature(maximum=0.25, minimum=sig * (1.0 - sig))
    return Curvature(maximum=1.0, minimum=1.0)


def loss_range(loss, lam):
    r"""Return the :class:`LossRange` of ``loss`` on predictors :math:`|z| \le \lambda`.

    Parameters
    ----------
    loss : LogisticLoss or SquaredLoss
        A loss from :mod:`dplasso.optim.losses`; a squared loss must carry its public
        response bound ``y_bound``.
    lam : float
        Radius of the L1 ball, ``> 0``.

    Returns
    -------
    LossRange

    Raises
    ------
    TypeError
        If ``loss`` is not a logistic or squared loss.
    ValueError
        If ``lam`` is invalid, or a squared loss has no ``y_bound``.
    """
    check_screening_loss(loss)
    lam = check_lam(lam)
    if isinstance(loss, LogisticLoss):
        sig = float(expit(lam))
        omega = float(lambertw(1.0 / np.e).real)  # t*sigma(t) is smallest at t = -1 - omega
        low = -omega if lam >= 1.0 + omega else -lam * (1.0 - sig)
        return LossRange(residual=sig, value=float(np.logaddexp(0.0, lam)),
                         product_min=low, product_max=lam * sig)
    if loss.y_bound is None:
        raise ValueError("the squared loss needs its public response bound y_bound")
    y_max = loss.y_bound
    residual = lam + y_max
    low = -0.25 * y_max**2 if y_max <= 2.0 * lam else lam**2 - lam * y_max
    return LossRange(residual=residual, value=0.5 * residual**2, product_min=low,
                     product_max=lam * residual)
