"""Saved models carry the versions that wrote them: save/load and pickle/joblib round trips, a
warning naming both versions under other ones, a clear error for a newer model format, CPU loading
of a GPU-trained model. Version mismatches are faked by editing the stored metadata."""

from __future__ import annotations

import io
import json
import pickle
import re
import warnings
import zipfile
from pathlib import Path

import joblib
import numpy as np
import pandas as pd
import pytest
import torch

from tsattn import TSClassifier, TSForecaster, TSRegressor, __version__
from tsattn.estimators import InconsistentVersionWarning, persistence
from tsattn.estimators.forecaster.params import REMOVED

NET = dict(d_model=8, n_heads=2, n_layers=1, dim_feedforward=16, max_epochs=2, max_steps=None,
           random_state=0, device="cpu")  # fmt: skip


def _series(n=16, c=2, length=12):
    rng = np.random.default_rng(0)
    return rng.normal(size=(n, c, length)), np.array(["a", "b"] * (n // 2))


def _frame(n=80):
    t = np.arange(n)
    values = np.stack([np.sin(2 * np.pi * t / 8 + k) for k in range(2)], axis=1)
    return pd.DataFrame(values, index=pd.date_range("2021-01-01", periods=n, freq="h"))


@pytest.fixture(scope="module")
def fitted():
    X, y = _series()
    reg_y = np.linspace(0, 1, len(y))
    return {
        "classifier": (TSClassifier(**NET).fit(X, y), X),
        "regressor": (TSRegressor(**NET).fit(X, reg_y), X),
        "forecaster": (TSForecaster(**NET, horizon=4, context_length=16).fit(_frame()), None),
    }


def _predict(model, X):
    return np.asarray(model.predict() if X is None else model.predict(X))


def _rewrite(path, edit, pickled=None):
    """Rewrite the metadata.json of the model file at ``path`` through ``edit(meta)`` (and its
    estimator.pkl as ``pickled``, if given)."""
    with zipfile.ZipFile(path) as archive:
        files = {name: archive.read(name) for name in archive.namelist()}
    meta = json.loads(files["metadata.json"])
    edit(meta)
    files["metadata.json"] = json.dumps(meta).encode()
    if pickled is not None:
        files["estimator.pkl"] = pickled
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)


@pytest.mark.parametrize("kind", ["classifier", "regressor", "forecaster"])
def test_save_load_round_trip_predicts_the_same_without_warnings(fitted, kind, tmp_path):
    model, X = fitted[kind]
    path = model.save(tmp_path / "model.tsattn")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        loaded = type(model).load(path)
    assert type(loaded) is type(model) and loaded.device_.type == "cpu"
    np.testing.assert_array_equal(_predict(loaded, X), _predict(model, X))


def test_the_file_says_its_format_class_and_versions_without_unpickling(fitted, tmp_path):
    import sklearn

    path = fitted["classifier"][0].save(tmp_path / "model.tsattn")
    with zipfile.ZipFile(path) as archive:
        meta = json.loads(archive.read("metadata.json"))
    assert meta == {
        "format": persistence.FORMAT,
        "class": "tsattn.estimators.classification.TSClassifier",
        "versions": {"tsattn": __version__, "torch": torch.__version__,
                     "scikit-learn": sklearn.__version__},
    }  # fmt: skip


def test_loading_under_other_versions_warns_naming_both(fitted, tmp_path):
    model, X = fitted["classifier"]
    path = model.save(tmp_path / "model.tsattn")
    _rewrite(path, lambda m: m["versions"].update({"tsattn": "0.0.1", "scikit-learn": "1.5.0"}))
    with pytest.warns(InconsistentVersionWarning) as record:
        loaded = TSClassifier.load(path)
    assert len(record) == 1, "the file's metadata is checked once, not again when unpickling"
    message = str(record[0].message)
    assert f"tsattn 0.0.1 (now {__version__})" in message and "scikit-learn 1.5.0 (now" in message
    assert "torch" not in message  # only what differs
    assert record[0].filename == __file__  # points at the caller's line
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))


def test_a_torch_build_tag_is_not_another_version(fitted, tmp_path):
    path = fitted["classifier"][0].save(tmp_path / "model.tsattn")
    public = torch.__version__.split("+")[0]
    _rewrite(path, lambda m: m["versions"].update({"torch": public + "+cu121"}))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        TSClassifier.load(path)


def test_a_newer_model_format_fails_clearly_before_unpickling(fitted, tmp_path):
    path = fitted["classifier"][0].save(tmp_path / "model.tsattn")
    # with a pickle this tsattn could not read
    _rewrite(path, lambda m: m.update(format=persistence.FORMAT + 1), pickled=b"not a pickle")
    with pytest.raises(ValueError, match=rf"model format {persistence.FORMAT + 1} .*reads formats "
                       rf"up to {persistence.FORMAT}.*Upgrade tsattn"):  # fmt: skip
        TSClassifier.load(path)


def test_load_refuses_another_class_and_other_files(fitted, tmp_path):
    path = fitted["regressor"][0].save(tmp_path / "model.tsattn")
    with pytest.raises(TypeError, match="holds a TSRegressor, not a TSClassifier.*TSRegressor.load"):
        TSClassifier.load(path)
    other = tmp_path / "model.pkl"
    other.write_bytes(pickle.dumps(fitted["regressor"][0]))
    with pytest.raises(ValueError, match="not a model saved by tsattn's save.*pickle.load"):
        TSRegressor.load(other)  # a pickle holds torch's zip of the weights: still refused
    other.write_bytes(b"plain text")
    with pytest.raises(ValueError, match="not a zip file"):
        TSRegressor.load(other)


def test_an_unfitted_estimator_saves_and_loads(tmp_path):
    model = TSClassifier(attention="bn", beta=0.3)
    loaded = TSClassifier.load(model.save(tmp_path / "m.tsattn"))
    assert loaded.get_params() == model.get_params() and not hasattr(loaded, "module_")


# ----------------------------------------------------------------------------- pickle and joblib
def _pickled_with(monkeypatch, model, **edits):
    """``model`` pickled while the stored metadata is edited by ``edits``."""
    original = persistence.metadata

    def edited(estimator):
        meta = original(estimator)
        meta["versions"].update(edits.pop("versions", {}))
        meta.update(edits)
        return meta

    with monkeypatch.context() as patch:
        patch.setattr(persistence, "metadata", edited)
        return pickle.dumps(model)


@pytest.mark.parametrize("kind", ["classifier", "forecaster"])
def test_pickle_and_joblib_round_trips_stay_silent(fitted, kind, tmp_path):
    model, X = fitted[kind]
    joblib.dump(model, tmp_path / "model.joblib")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        by_pickle = pickle.loads(pickle.dumps(model))
        by_joblib = joblib.load(tmp_path / "model.joblib")
    for loaded in (by_pickle, by_joblib):
        np.testing.assert_array_equal(_predict(loaded, X), _predict(model, X))


def test_a_pickle_from_other_versions_warns_naming_both(fitted, monkeypatch, tmp_path):
    model, X = fitted["classifier"]
    blob = _pickled_with(monkeypatch, model, versions={"torch": "1.13.1"})
    now = re.escape(torch.__version__)
    with pytest.warns(InconsistentVersionWarning, match=rf"torch 1\.13\.1 \(now {now}\)"):
        loaded = pickle.loads(blob)
    assert not hasattr(loaded, "_tsattn_saved")
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))
    (tmp_path / "model.joblib").write_bytes(blob)  # joblib reads plain pickles too
    with pytest.warns(InconsistentVersionWarning, match="torch 1.13.1"):
        joblib.load(tmp_path / "model.joblib")


def test_a_pickle_in_a_newer_model_format_fails_clearly(fitted, monkeypatch):
    blob = _pickled_with(monkeypatch, fitted["classifier"][0], format=persistence.FORMAT + 1)
    with pytest.raises(ValueError, match="Upgrade tsattn"):
        pickle.loads(blob)


def test_a_pickle_that_recorded_no_versions_warns(fitted):
    model, X = fitted["classifier"]
    state = model.__getstate__()
    del state["_tsattn_saved"]  # as pickled by tsattn 0.1.0
    loaded = TSClassifier.__new__(TSClassifier)
    with pytest.warns(InconsistentVersionWarning, match="recorded no versions"):
        loaded.__setstate__(state)
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))


@pytest.mark.skipif(torch.cuda.is_available(), reason="simulates a CPU-only machine")
def test_a_model_saved_for_cuda_loads_on_the_cpu(tmp_path):
    X, y = _series()
    model = TSClassifier(**NET).fit(X, y)
    expected = model.predict_proba(X)
    model.device = "cuda"  # as if it had been fitted on a GPU machine
    path = model.save(tmp_path / "model.tsattn")
    with pytest.warns(UserWarning, match="loading it on the CPU"):
        loaded = TSClassifier.load(path)
    assert loaded.device_.type == "cpu"
    np.testing.assert_allclose(loaded.predict_proba(X), expected, rtol=1e-6)


def test_the_saved_weights_are_a_cpu_state_dict_read_without_pickle_code(fitted):
    """The network's weights load with torch's ``weights_only`` reader on any machine."""
    state = fitted["classifier"][0].__getstate__()
    weights = torch.load(io.BytesIO(state["_module_state"]), weights_only=True)
    assert weights and all(t.device.type == "cpu" for t in weights.values())


# ----------------------------------------------------------------------------- removed options
SAVED = Path(__file__).parent / "saved"  # written by tsattn 0.1.0 at 5852bfc (saved/make_models.py)


@pytest.mark.parametrize("name", ["default", "fourier"])
def test_a_model_saved_before_the_options_were_removed_loads_when_it_left_them_at_their_defaults(name):
    """Format 1, every removed option at the value whose behaviour was kept: it loads (warning only
    that it was saved under another torch or scikit-learn, if so) and forecasts as it did; the
    Fourier head's ``n_harm`` and projection move into the registered head."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InconsistentVersionWarning)
        model = TSForecaster.load(SAVED / f"forecaster_0.1.0_{name}.tsattn")
    assert not set(REMOVED) & set(vars(model))
    assert "instance_norm" not in model.network_params_ and not hasattr(model, "network_refit_")
    assert model.network_params_["head_params"] == ({"n_harm": 3} if name == "fourier" else {})
    np.testing.assert_array_equal(model.predict(), np.load(SAVED / f"forecaster_0.1.0_{name}_predict.npy"))
    again = pickle.loads(pickle.dumps(model))  # saved again in this format: loads as it is
    np.testing.assert_array_equal(again.predict(), model.predict())


@pytest.mark.parametrize("name, message", [
    ("instance_center_last", r"saved with instance_center='last': removed .*keeps only "
                             r"instance_center='mean'\. Refit it"),
    ("network_refit", r"saved with network_refit=True: removed .*keeps only network_refit=False"),
])  # fmt: skip
def test_a_model_saved_with_a_removed_option_fails_naming_it(name, message):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InconsistentVersionWarning)
        with pytest.raises(ValueError, match=message):
            TSForecaster.load(SAVED / f"forecaster_0.1.0_{name}.tsattn")


def test_removed_options_are_named_together_whatever_the_way_the_model_was_pickled(fitted):
    state = fitted["forecaster"][0].__getstate__()
    state.update(anchor_recency=0.125, patch_levels=3, linear_skip=False)
    blank = TSForecaster.__new__(TSForecaster)
    with pytest.raises(ValueError, match=r"anchor_recency=0.125, patch_levels=3: removed"):
        blank.__setstate__(state)
@pytest.mark.parametrize(("kind", "option", "value", "default"),
                         [("classifier", "mixup", 0.2, 0.0), ("classifier", "stem_pool", True, False),
                          ("regressor", "target_scaling", "robust", "standard")])
def test_a_collection_model_saved_with_a_removed_option_fails_naming_it(
    fitted, kind, option, value, default, tmp_path
):
    """A model of an older tsattn that set a since removed option to another value than its
    default cannot be rebuilt: load says which option; at its default the option is dropped."""
    model, X = fitted[kind]
    cls = type(model)
    state = model.__getstate__()
    loaded = cls.__new__(cls)
    loaded.__setstate__({**state, option: default})  # the old default: nothing lost
    assert not hasattr(loaded, option)
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))
    with pytest.raises(ValueError, match=rf"saved with {option}={value!r}: removed .* keeps only "
                                         rf"{option}={default!r}"):  # fmt: skip
        cls.__new__(cls).__setstate__({**state, option: value})
    path = model.save(tmp_path / "model.tsattn")  # through load(): the same message
    _rewrite(path, lambda meta: None, pickled=pickle.dumps(_Pickled(cls, {**state, option: value})))
    with pytest.raises(ValueError, match=rf"{option}=.*load it with the tsattn that saved it"):
        cls.load(path)


class _Pickled:
    """Pickles as an instance of ``cls`` with ``state`` (a model as an older tsattn wrote it)."""

    def __init__(self, cls, state):
        self.cls, self.state = cls, state

    def __reduce__(self):
        return (self.cls.__new__, (self.cls,), self.state)
