"""How the OpenAPI schema describes the API, where drf-spectacular's defaults would leave a
generated client guessing.

- A DELETE that takes a body (the password that deletes an account) documents it.
- A model serializer's response lists every model field as required: it always sends them.
- A nullable reference is nullable in OpenAPI 3.0 terms that strict validators accept.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular import openapi
from rest_framework import serializers

# The one value a nullable reference adds. `nullable` only widens a schema that names a `type`
# (OpenAPI 3.0.3), so a reference gets null as a second choice of its own.
NULL = {"type": "object", "nullable": True, "enum": [None]}


class AutoSchema(openapi.AutoSchema):
    def _get_request_body(self, direction: str = "request") -> Any:
        # drf-spectacular documents bodies for POST, PUT and PATCH only. A DELETE view that
        # reads one declares it with extend_schema(request=...), which overrides this method.
        declared = type(self).get_request_serializer is not AutoSchema.get_request_serializer
        if self.method != "DELETE" or not declared:
            return super()._get_request_body(direction)
        self.method = "POST"  # only read here to decide whether a body is possible
        try:
            return super()._get_request_body(direction)
        finally:
            self.method = "DELETE"

    def _map_basic_serializer(self, serializer: Any, direction: str) -> Any:
        schema = super()._map_basic_serializer(serializer, direction)
        if direction == "response" and isinstance(serializer, serializers.ModelSerializer):
            # A model field with a default is optional to send, but always there to read.
            declared = set(serializer._declared_fields)
            built = [name for name in schema["properties"] if name not in declared]
            schema["required"] = sorted({*schema.get("required", []), *built})
        return schema


def nullable_references(result: dict[str, Any], generator: Any, **kwargs: Any) -> dict[str, Any]:
    """`{allOf: [$ref], nullable: true}` (and a nullable `oneOf`) -> `{oneOf: [..., NULL]}`:
    strict validators ignore `nullable` beside a reference and refuse null there."""

    def walk(node: Any) -> Any:
        if isinstance(node, list):
            return [walk(item) for item in node]
        if not isinstance(node, dict):
            return node
        node = {key: walk(value) for key, value in node.items()}
        if not node.get("nullable") or "type" in node:
            return node
        if len(node.get("allOf", [])) == 1:
            choices = node["allOf"]
        elif "oneOf" in node:
            choices = node["oneOf"]
        else:
            return node
        rest = {k: v for k, v in node.items() if k not in {"allOf", "oneOf", "nullable"}}
        # drf-spectacular's nullable enums carry their own null choice (NullEnum) already.
        has_null = any(c.get("$ref", "").endswith("/NullEnum") for c in choices)
        return {"oneOf": choices if has_null else [*choices, NULL], **rest}

    return walk(result)  # type: ignore[no-any-return]
