"""Write two series that ship with statsmodels as CSV files in the long-horizon sets' format (a
``date`` column, then the channels), for ``tsattn bench forecast``: data no default was chosen on.

    python3 docs/results/forecast_unseen/make_data.py OUT_DIR

- ``co2.csv``: weekly atmospheric CO2 at Mauna Loa, 1958-2001 (2,284 rows; its 59 missing weeks
  filled by linear interpolation in time): a trend with a yearly season.
- ``elnino.csv``: monthly sea surface temperature of the El Nino region, 1950-2010 (732 rows): a
  season with irregular multi-year swings.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd
import statsmodels.api as sm


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    co2 = sm.datasets.co2.load_pandas().data["co2"].interpolate(method="time")
    co2.rename_axis("date").reset_index().to_csv(out / "co2.csv", index=False)
    wide = sm.datasets.elnino.load_pandas().data.set_index("YEAR")
    sst = wide.stack()  # (year, month name) in calendar order
    dates = pd.to_datetime([f"{int(y)}-{m}-01" for y, m in sst.index], format="%Y-%b-%d")
    pd.DataFrame({"date": dates, "sst": sst.to_numpy()}).to_csv(out / "elnino.csv", index=False)
    for name in ("co2.csv", "elnino.csv"):
        print(out / name, len(pd.read_csv(out / name)), "rows")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
