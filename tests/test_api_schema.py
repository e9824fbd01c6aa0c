"""The API's OpenAPI 3 schema (/api/openapi.json) and its documentation page (/api/docs/)."""

import re

import pytest
from jsonschema.exceptions import ValidationError
from openapi_schema_validator import OAS30Validator
from openapi_spec_validator import validate

pytestmark = pytest.mark.django_db


def test_api_schema_is_valid_openapi_3_and_lists_every_endpoint(client):
    response = client.get("/api/openapi.json")
    assert response.status_code == 200
    schema = response.json()
    validate(schema)
    assert schema["openapi"] == "3.0.3"
    assert schema["info"]["title"] == "Curriculum Wiki API"
    assert sorted(schema["paths"]) == [
        "/api/",
        "/api/changes/",
        "/api/changes/{id}/",
        "/api/changes/{id}/decision/",
        "/api/diff/",
        "/api/media/",
        "/api/pages/",
        "/api/pages/by-path/{path}/",
        "/api/pages/{id}/",
        "/api/pages/{id}/revisions/",
        "/api/revisions/{revision_id}/",
        "/api/search/",
        "/api/tree/",
    ]
    assert schema["components"]["securitySchemes"]["token"]["scheme"] == "bearer"
    edit = schema["paths"]["/api/pages/{id}/"]["patch"]
    assert sorted(edit["responses"]) == ["200", "202", "409"]
    assert sorted(schema["paths"]["/api/pages/{id}/"]) == ["delete", "get", "patch"]
    body = edit["requestBody"]["content"]["application/json"]["schema"]["$ref"]
    assert schema["components"]["schemas"][body.split("/")[-1]]["required"] == ["base_revision"]


def test_api_docs_page_loads_only_the_wikis_own_files(client):
    response = client.get("/api/docs/")
    assert response.status_code == 200
    html = response.content.decode()
    sources = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert sources == [
        "/static/drf_spectacular_sidecar/swagger-ui-dist/favicon-32x32.png",
        "/static/drf_spectacular_sidecar/swagger-ui-dist/swagger-ui.css",
        "/static/drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js",
        "/static/drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-standalone-preset.js",
        "/api/docs/?script=",
    ]
    assert "<style" not in html
    assert "<script>" not in html
    assert "default-src 'self'" in response["Content-Security-Policy"]
    for source in sources[:-1]:
        assert client.get(source).status_code == 200
    script = client.get("/api/docs/?script=")
    assert script.status_code == 200
    assert '"/api/openapi.json"' in script.content.decode()


def test_api_answers_match_the_schema(client, small_tree):
    spec = client.get("/api/openapi.json").json()

    def check(url, path, method="get", status="200"):
        answer = client.get(url).json()
        response = spec["paths"][path][method]["responses"][status]
        schema = response["content"]["application/json"]["schema"]
        OAS30Validator({**schema, "components": spec["components"]}).validate(answer)
        return answer

    assert check("/api/tree/", "/api/tree/")["count"] == 11
    assert check("/api/pages/3/", "/api/pages/{id}/")["title"] == "Chapter One"
    assert check("/api/pages/3/revisions/", "/api/pages/{id}/revisions/")["count"] == 1
    assert check("/api/search/?q=chapter", "/api/search/")["corrected"] == ""
    with pytest.raises(ValidationError):
        OAS30Validator(
            {"$ref": "#/components/schemas/Page", "components": spec["components"]}
        ).validate({"id": "three"})
