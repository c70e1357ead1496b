"""Tests every registered attention variant must pass (attention.md, last section)."""

from __future__ import annotations

import pytest
import torch

from tests.helpers.reference_attention import REDUCTIONS, REFERENCES, SOFTMAX_FAMILY, TEST_CONFIGS
from tsattn.attention import build_attention, list_attention
from tsattn.attention import functional as F_attn

D_MODEL, N_HEADS = 16, 4


def _cases():
    for name in list_attention():
        for i, cfg in enumerate(TEST_CONFIGS.get(name, [{}])):
            yield pytest.param(name, cfg, id=f"{name}-{i}")


def _build(name, cfg, seed=0):
    torch.manual_seed(seed)
    return build_attention(name, D_MODEL, N_HEADS, **cfg).double().eval()


def _inputs(b=3, n=11, seed=1):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(b, n, D_MODEL, generator=g, dtype=torch.float64)
    mask = torch.ones(b, n, dtype=torch.bool)
    mask[1 % b, min(7, n - 1) :] = False
    mask[2 % b, 3:] = False
    return x, mask


def test_every_variant_has_a_reference_and_config():
    missing = [n for n in list_attention() if n not in REFERENCES or n not in TEST_CONFIGS]
    assert not missing, f"variants without a reference/test config in tests: {missing}"


@pytest.mark.parametrize("name,cfg", list(_cases()))
@pytest.mark.parametrize("masked", [False, True])
def test_fast_path_matches_reference(name, cfg, masked):
    module = _build(name, cfg)
    x, mask = _inputs()
    mask = mask if masked else None
    with torch.no_grad():
        fast = module(x, mask)
        ref = REFERENCES[name](module, x, mask)
    real = mask if mask is not None else torch.ones(x.shape[:2], dtype=torch.bool)
    assert fast.shape == x.shape
    torch.testing.assert_close(fast[real], ref[real], rtol=1e-9, atol=1e-10)


@pytest.mark.parametrize("name,cfg", list(_cases()))
def test_padding_appended_changes_nothing(name, cfg):
    module = _build(name, cfg)
    x, mask = _inputs()
    g = torch.Generator().manual_seed(5)
    junk = 1e3 * torch.randn(x.shape[0], 6, D_MODEL, generator=g, dtype=torch.float64)
    x_pad = torch.cat([x, junk], dim=1)
    mask_pad = torch.cat([mask, torch.zeros(x.shape[0], 6, dtype=torch.bool)], dim=1)
    with torch.no_grad():
        base = module(x, mask)
        padded = module(x_pad, mask_pad)
    torch.testing.assert_close(padded[:, : x.shape[1]][mask], base[mask], rtol=1e-9, atol=1e-10)


@pytest.mark.parametrize("name,cfg", list(_cases()))
def test_gradients_reach_every_parameter(name, cfg):
    module = _build(name, cfg)
    x, mask = _inputs(b=2, n=7)
    x.requires_grad_(True)

    def f(inp):
        return module(inp, mask)

    assert torch.autograd.gradcheck(f, (x,), eps=1e-6, atol=1e-5)
    module(x, mask).pow(2).sum().backward()
    for pname, p in module.named_parameters():
        assert p.grad is not None and torch.isfinite(p.grad).all(), pname
        assert p.grad.abs().sum() > 0, f"no gradient reaches {pname}"


@pytest.mark.parametrize("name,cfg,other,other_cfg", REDUCTIONS)
def test_reductions(name, cfg, other, other_cfg):
    a = _build(name, cfg, seed=3)
    b = _build(other, other_cfg, seed=3)
    # The reduced variant may own extra parameters (conv1d's kernel); every parameter of the target
    # must come from the source, so only "unexpected" keys are tolerated.
    result = b.load_state_dict(a.state_dict(), strict=False)
    assert not result.missing_keys, result.missing_keys
    x, mask = _inputs()
    with torch.no_grad():
        torch.testing.assert_close(a(x, mask)[mask], b(x, mask)[mask], rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize(
    "name",
    ["softmax", "bn", "sh", "bn_sh", "linear", "linear_bn", "linear_sh", "linear_bn_sh", "sparse",
     "sparse_bn", "sparse_sh", "sparse_bn_sh", "mrs", "mrs_linear"],
)
def test_state_dict_from_softmax_loads(name):
    src = build_attention("softmax", D_MODEL, N_HEADS)
    dst = build_attention(name, D_MODEL, N_HEADS)
    dst.load_state_dict(src.state_dict(), strict=True)


@pytest.mark.parametrize("name", SOFTMAX_FAMILY)
def test_softmax_family_goes_through_sdpa(name, monkeypatch):
    calls = []
    real = torch.nn.functional.scaled_dot_product_attention

    def spy(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(F_attn.F, "scaled_dot_product_attention", spy)
    module = build_attention(name, D_MODEL, N_HEADS).eval()
    x, mask = _inputs()
    module(x.float(), mask)
    assert calls, f"{name} did not call scaled_dot_product_attention"


# ----------------------------------------------------------------------------- declarations
def test_every_variant_declares_its_constructor_hyperparameters():
    """The declaration is the one source: the constructor's keywords and defaults follow it."""
    import inspect

    from tsattn.attention import get_attention_class

    for name in list_attention():
        cls = get_attention_class(name)
        sig = inspect.signature(cls.__init__)
        keywords = {
            p.name: p.default for p in sig.parameters.values()
            if p.kind is p.KEYWORD_ONLY and p.name != "dropout"
        }  # fmt: skip
        declared = {hp.name: hp.default for hp in cls.hyperparameters}
        assert keywords == declared, name
        assert cls.summary, f"{name} has no summary for the README table"
        assert "helps" in vars(cls) and cls.helps, (
            f"{name} declares no line of its own for the guide's choosing table (helps)")


def test_declarations_of_one_name_agree_on_what_is_allowed():
    from tsattn.attention import hyperparameter_declarations

    for name, declarations in hyperparameter_declarations().items():
        assert len({(hp.type, hp.constraint) for hp in declarations}) == 1, name
    beta = hyperparameter_declarations()["beta"]
    assert len(beta) == 1, "beta is declared once (batch_norm.py) and shared by every BN variant"


# ----------------------------------------------------------------------------- attention weights
@pytest.mark.parametrize("name,cfg", list(_cases()))
def test_weights_returned_by_a_variant_are_the_map_its_output_is_made_of(name, cfg):
    """``need_weights=True``: the same output, and weights W with out_proj(W @ V) == output."""
    module = _build(name, cfg)
    x, mask = _inputs()
    if not module.supports_weights:
        with pytest.raises(ValueError, match="cannot return attention weights.*Variants with exact"):
            module(x, mask, need_weights=True)
        return
    with torch.no_grad():
        out, weights = module(x, mask, need_weights=True)
        plain = module(x, mask)
        v = module.project_heads(module.v_proj, x)
        rebuilt = module.out_proj(module.merge_heads(weights @ v))
    b, n = mask.shape
    assert weights.shape == (b, N_HEADS, n, n)
    torch.testing.assert_close(out[mask], plain[mask], rtol=1e-9, atol=1e-10)
    torch.testing.assert_close(rebuilt[mask], plain[mask], rtol=1e-9, atol=1e-10)
    rows = weights.sum(-1).permute(0, 2, 1)[mask]  # (real queries, heads)
    torch.testing.assert_close(rows, torch.ones_like(rows))
    assert (weights.masked_select(~mask[:, None, None, :]) == 0).all()  # padded steps get nothing
    assert (weights.masked_select(~mask[:, None, :, None]) == 0).all()  # padded queries: zero rows
