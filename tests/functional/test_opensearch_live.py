"""The RuleIndex contract against a real OpenSearch cluster (k-NN plugin, 2.19+ for faiss cosinesimil).

Runs only when OPENSEARCH_URL is set, e.g. `OPENSEARCH_URL=https://localhost:9200
OPENSEARCH_USERNAME=admin OPENSEARCH_PASSWORD=... pytest tests/functional/test_opensearch_live.py`
(OPENSEARCH_ENGINE=lucene for an older cluster). Each test gets its own index, deleted afterwards.
No OpenSearch server can be obtained on the development machines (TOOLCHAIN.md), hence the skip.
"""

from __future__ import annotations

import os
import uuid

import pytest

URL = os.environ.get("OPENSEARCH_URL")
if not URL:
    pytest.skip("OPENSEARCH_URL not set: no OpenSearch server can run here", allow_module_level=True)

from focal.adapters.opensearch_index import OpenSearchRuleIndex, index_name, opensearch_client  # noqa: E402
from test_rule_index_contract import DIM, RuleIndexContract  # noqa: E402


@pytest.fixture
def index():
    assert URL
    client = opensearch_client(
        URL, username=os.environ.get("OPENSEARCH_USERNAME"), password=os.environ.get("OPENSEARCH_PASSWORD"),
        timeout_s=30.0,
    )
    name = index_name(f"contract-{uuid.uuid4().hex[:12]}", prefix="focal-test")
    adapter = OpenSearchRuleIndex(client, name, DIM, engine=os.environ.get("OPENSEARCH_ENGINE", "faiss"))  # type: ignore[arg-type]
    yield adapter
    client.indices.delete(index=name, ignore=[404])


class TestRuleIndexLive(RuleIndexContract):
    pass
