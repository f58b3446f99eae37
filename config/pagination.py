import binascii
from base64 import urlsafe_b64decode, urlsafe_b64encode
from datetime import datetime
from typing import Any

from django.db.models import Q
from django.utils.dateparse import parse_datetime
from rest_framework import pagination, serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.utils.urls import replace_query_param


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


class KeysetPagination(PageNumberPagination):
    """Page numbers as `PageNumberPagination`, or pages read on from a cursor: `?cursor=` takes
    the `next_cursor` of the page before and answers the page after it, read from that row on
    in the list's order however deep it is, where a page number counts every row before it.
    Every page says its `next_cursor` (null on the last); a cursor's `next` link carries the
    next one, and its `previous` is null (cursors read forward).

    The queryset is ordered by `key`, a DateTimeField, then by the primary key, so each row has
    one place.
    """

    cursor_query_param = "cursor"
    key = "due"
    max_cursor_length = 200

    def paginate_queryset(self, queryset: Any, request: Request, view: Any = None) -> Any:
        self.request = request
        self.link_base = request.build_absolute_uri()
        raw = request.query_params.get(self.cursor_query_param)
        self.cursor_mode = raw is not None
        if raw is None:
            rows: list[Any] = list(super().paginate_queryset(queryset, request, view) or [])
            more = self.page is not None and self.page.has_next()
            self.next_cursor = self._encode(rows[-1]) if rows and more else None
            return rows
        moment, pk = self._decode(raw)
        size = self.get_page_size(request)
        self.count = queryset.count()
        after = queryset.filter(**{f"{self.key}__gte": moment}).filter(
            Q(**{f"{self.key}__gt": moment}) | Q(**{self.key: moment, "pk__gt": pk})
        )
        rows = list(after[: size + 1])
        more = len(rows) > size
        rows = rows[:size]
        self.next_cursor = self._encode(rows[-1]) if more and rows else None
        return rows

    def get_paginated_response(self, data: Any) -> Response:
        if not self.cursor_mode:
            response = super().get_paginated_response(data)
            response.data["next_cursor"] = self.next_cursor
            return response
        next_link = None
        if self.next_cursor is not None:
            next_link = replace_query_param(
                self.link_base, self.cursor_query_param, self.next_cursor
            )
        return Response(
            {
                "count": self.count,
                "next": next_link,
                "previous": None,
                "next_cursor": self.next_cursor,
                "results": data,
            }
        )

    def _encode(self, row: Any) -> str:
        text = f"{getattr(row, self.key).isoformat()}|{row.pk}"
        return urlsafe_b64encode(text.encode()).decode().rstrip("=")

    def _decode(self, raw: str) -> tuple[datetime, int]:
        problem = serializers.ValidationError(
            {self.cursor_query_param: ["Not a cursor this list gave: use a page's next_cursor."]}
        )
        if not raw or len(raw) > self.max_cursor_length or not raw.isascii():
            raise problem
        try:
            text = urlsafe_b64decode(raw + "=" * (-len(raw) % 4)).decode("ascii")
            moment_text, pk_text = text.split("|")
            moment = parse_datetime(moment_text)
            pk = int(pk_text) if pk_text.isdigit() else 0
        except (ValueError, UnicodeDecodeError, binascii.Error):
            raise problem from None
        if moment is None or moment.tzinfo is None or not 0 < pk < 2**63:
            raise problem
        return moment, pk

    def get_paginated_response_schema(self, schema: dict[str, Any]) -> dict[str, Any]:
        response = super().get_paginated_response_schema(schema)
        response["properties"]["next_cursor"] = {
            "type": "string",
            "nullable": True,
            "description": "Send as `cursor` for the page after this one; null on the last.",
        }
        response["required"] = [*response["required"], "next_cursor"]
        return response

    def get_schema_operation_parameters(self, view: Any) -> list[dict[str, Any]]:
        parameters = super().get_schema_operation_parameters(view)
        parameters.append(
            {
                "name": self.cursor_query_param,
                "required": False,
                "in": "query",
                "description": "A page's `next_cursor`: the page after it, read from there on "
                "(for paging deep; `page` is then not used).",
                "schema": {"type": "string", "maxLength": self.max_cursor_length},
            }
        )
        return parameters
