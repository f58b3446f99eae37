from rest_framework import pagination


class PageNumberPagination(pagination.PageNumberPagination):
    """`?page=` and `?page_size=` (capped at 100), answering {count, next, previous, results}."""

    page_size = 20
    page_size_query_param = "page_size"
    max_page_size = 100
