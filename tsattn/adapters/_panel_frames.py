"""sktime's panel and hierarchical frames as :class:`tsattn.TSForecaster`'s long frames, and back.

sktime holds many series in one frame on a row ``MultiIndex``: the instance levels (one for a
panel, several for a hierarchy) and the time level last, one column per variable. ``TSForecaster``
reads a *long frame* (``unique_id``, ``ds``, ``y`` and covariate columns) and trains one network
on all of its series. :class:`PanelLayout` converts between the two: each instance and target
column becomes one series of the long frame (``unique_id`` the instance's levels joined by ``/``,
with ``/column`` when ``y`` has several columns), ``ds`` the time level (a ``PeriodIndex`` as the
periods' start times, a ``DatetimeIndex`` and integers as they are), and the forecasts come back on
the instance levels and the time level's own type. Imports neither toolkit.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from tsattn.io.panel import ID, TARGET, TIME

__all__ = ["PanelLayout", "is_panel"]


def is_panel(frame: Any) -> bool:
    """Whether ``frame`` is one of sktime's panel or hierarchical frames (a row MultiIndex)."""
    return isinstance(frame, pd.DataFrame) and isinstance(frame.index, pd.MultiIndex)


def _label(key: Any) -> str:
    return "/".join(map(str, key)) if isinstance(key, tuple) else str(key)


@dataclass
class PanelLayout:
    """The instances and columns of a panel ``y``, and its time level's kind.

    instances : the instance keys (a ``MultiIndex`` of the instance levels for a hierarchy), in
        the order first seen; a series' ``unique_id`` is built from its key.
    columns : ``y``'s target columns; each becomes a series of the long frame per instance.
    names : the names of the row index's levels (instance levels, then time).
    period_freq : the frequency of a ``PeriodIndex`` time level, None for datetimes and integers.
    """

    instances: pd.Index
    columns: pd.Index
    names: list
    period_freq: Any = None
    ids: np.ndarray = field(init=False)  # (n_instances, n_columns) unique_id of each series

    def __post_init__(self) -> None:
        labels = np.array([_label(k) for k in self.instances], dtype=object)
        if len(self.columns) > 1:
            self.ids = np.array(
                [[f"{lab}/{c}" for c in self.columns] for lab in labels], dtype=object
            )
        else:
            self.ids = labels[:, None]
        if len(set(self.ids.ravel())) != self.ids.size:
            raise ValueError(f"the instances {list(self.instances)} give the same series name "
                             f"twice when their levels are written as text joined by '/'; "
                             "rename the instances so that each reads differently.")  # fmt: skip

    @classmethod
    def of(cls, y: pd.DataFrame, previous: PanelLayout | None = None) -> PanelLayout:
        """The layout of ``y``; with ``previous``, its instances first and ``y``'s new ones after."""
        time = y.index.get_level_values(-1)
        if not isinstance(
            time, pd.PeriodIndex | pd.DatetimeIndex
        ) and not pd.api.types.is_integer_dtype(time):
            raise ValueError(f"the time level of y's index has dtype {time.dtype}; TSAttnForecaster "
                             "reads periods, datetimes or integers there.")  # fmt: skip
        keys = y.index.droplevel(-1).unique()
        if previous is not None:
            keys = previous.instances.append(keys[~keys.isin(previous.instances)])
        freq = time.freq if isinstance(time, pd.PeriodIndex) else None
        return cls(keys, y.columns, list(y.index.names), freq)

    # ------------------------------------------------------------------ to long frames
    def _rows(self, frame: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(instance position of each known row, ds of those rows, mask of known rows)``."""
        pos = self.instances.get_indexer(frame.index.droplevel(-1))
        known = pos >= 0
        time = frame.index.get_level_values(-1)[known]
        ds = time.to_timestamp() if isinstance(time, pd.PeriodIndex) else time
        return pos[known], np.asarray(ds), known

    def long_target(self, y: pd.DataFrame) -> pd.DataFrame:
        """``y`` as a long frame ``unique_id, ds, y``: one series per instance and column."""
        pos, ds, known = self._rows(y)
        values = y.to_numpy(dtype=np.float64)[known]
        return pd.concat([pd.DataFrame({ID: self.ids[pos, j], TIME: ds, TARGET: values[:, j]})
                          for j in range(len(self.columns))], ignore_index=True)  # fmt: skip

    def long_covariates(self, X: pd.DataFrame) -> pd.DataFrame:
        """The covariates ``X`` (a frame on the same instance and time levels) as a long frame
        ``unique_id, ds, *covariates``, each instance's rows given to every one of its series;
        rows of instances not in the layout are dropped."""
        pos, ds, known = self._rows(X)
        columns = {str(c): X[c].to_numpy()[known] for c in X.columns}
        return pd.concat([pd.DataFrame({ID: self.ids[pos, j], TIME: ds, **columns})
                          for j in range(len(self.columns))], ignore_index=True)  # fmt: skip

    # ------------------------------------------------------------------ back
    def from_long(self, out: pd.DataFrame, steps: np.ndarray, values: list,
                  columns: pd.Index) -> pd.DataFrame:  # fmt: skip
        """The forecast long frame ``out`` (``unique_id``, ``ds``, the columns ``values``, the
        ``horizon`` rows after each series) at the forecast ``steps`` (1-based) as sktime's frame:
        rows on the instance levels and the time level, ``columns`` ordered as ``(target column,
        value)`` pairs (one column per target when ``values`` is one column)."""
        flat = pd.Index(self.ids.ravel()).get_indexer(out[ID])  # row-major: i * n_columns + j
        where = np.stack(np.divmod(flat, len(self.columns)), axis=1)
        step = out.groupby(ID, sort=False).cumcount().to_numpy() + 1
        keep = np.isin(step, steps)
        rows = pd.DataFrame({"i": where[keep, 0], "j": where[keep, 1],
                             "t": out[TIME].to_numpy()[keep]})  # fmt: skip
        data = out.loc[keep, values].to_numpy(dtype=np.float64)
        order = np.lexsort((rows.t.to_numpy(), rows.i.to_numpy(), rows.j.to_numpy()))
        rows, data = rows.iloc[order], data[order]
        first = (rows.j == 0).to_numpy()
        n_rows = int(first.sum())
        # (n_columns, n_rows, len(values)) -> one block of columns per target column
        block = data.reshape(len(self.columns), n_rows, len(values)).transpose(1, 0, 2)
        keys = self.instances.take(rows.i.to_numpy()[first])
        levels = [keys.get_level_values(k) for k in range(keys.nlevels)]
        stamps = rows.t.to_numpy()[first]
        if self.period_freq is not None:
            time = pd.DatetimeIndex(stamps).to_period(self.period_freq)
        else:
            time = pd.Index(stamps)  # datetimes or integers, as they came
        index = pd.MultiIndex.from_arrays([*levels, time], names=self.names)
        return pd.DataFrame(block.reshape(n_rows, -1), index=index, columns=columns)
