from typing import Any

from rest_framework import pagination, serializers
from rest_framework.request import Request


class PageNumberPagination(pagination.PageNumberPagination):
    """`?page=` and `?page_size=` (capped at 100), answering {count, next, previous, results}.

    A page or page size that is not a positive whole number is a 400 naming the parameter,
    not silently replaced by the default; a page past the end is a 404.
    """

    page_size = 20
    page_size_query_param = "page_size"
    max_page_size = 100
    last_page_strings = ()

    def get_page_number(self, request: Request, paginator: Any) -> int:
        raw = request.query_params.get(self.page_query_param)
        if raw is None:
            return 1
        if not raw.isdigit() or int(raw) < 1:
            raise serializers.ValidationError(
                {"page": ["Must be a whole number from 1 (the first page)."]}
            )
        return int(raw)

    def get_page_size(self, request: Request) -> int:
        raw = request.query_params.get(self.page_size_query_param)
        if raw is None:
            return self.page_size
        try:
            size = int(raw)
        except ValueError:
            size = 0
        if size < 1:
            raise serializers.ValidationError(
                {"page_size": [f"Must be a whole number from 1 to {self.max_page_size}."]}
            )
        return min(size, self.max_page_size)

    def get_paginated_response_schema(self, schema: dict[str, Any]) -> dict[str, Any]:
        # `next` and `previous` are always sent, null at either end.
        response: dict[str, Any] = super().get_paginated_response_schema(schema)
        response["required"] = ["count", "next", "previous", "results"]
        return response

    def get_schema_operation_parameters(self, view: Any) -> list[dict[str, Any]]:
        parameters = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            if parameter["name"] == self.page_size_query_param:
                parameter["schema"] = {"type": "integer", "minimum": 1}
                parameter["description"] = f"Results per page, at most {self.max_page_size}."
            if parameter["name"] == self.page_query_param:
                parameter["schema"] = {"type": "integer", "minimum": 1}
        return parameters
