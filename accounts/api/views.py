from typing import Any

from django.conf import settings
from django.contrib.auth import authenticate, login, logout
from django.core import signing
from django.http import FileResponse, StreamingHttpResponse
from django.middleware.csrf import get_token
from django.utils import timezone
from drf_spectacular.utils import (
    OpenApiResponse,
    extend_schema,
    extend_schema_view,
    inline_serializer,
)
from rest_framework import generics, serializers, status
from rest_framework.exceptions import NotFound
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import export_files, selectors, services, tasks
from accounts.api.serializers import (
    LoginResponseSerializer,
    LoginSerializer,
    NotificationSerializer,
    NotificationsReadResponseSerializer,
    NotificationsReadSerializer,
    PasswordSerializer,
    RegisterResponseSerializer,
    RegisterSerializer,
    UserSerializer,
)
from accounts.api.throttles import LoginThrottle, RegisterThrottle
from accounts.filters import NotificationFilter
from accounts.models import Notification
from config import background
from config.problems import Problem


class RegisterView(APIView):
    permission_classes = [AllowAny]
    authentication_classes: list[type] = []
    throttle_classes = [RegisterThrottle]

    @extend_schema(
        request=RegisterSerializer,
        responses={201: RegisterResponseSerializer},
        summary="Create an account and get its first token",
        operation_id="register",
    )
    def post(self, request: Request) -> Response:
        body = RegisterSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        user, token = services.user_register(**body.validated_data)
        return Response(
            {"user": UserSerializer(user).data, "token": token}, status=status.HTTP_201_CREATED
        )


class LoginView(APIView):
    permission_classes = [AllowAny]
    authentication_classes: list[type] = []
    throttle_classes = [LoginThrottle]

    @extend_schema(
        request=LoginSerializer,
        responses={200: LoginResponseSerializer},
        summary="Sign in: a new per-device token that expires",
        operation_id="login",
    )
    def post(self, request: Request) -> Response:
        body = LoginSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        user = authenticate(
            request._request,
            username=selectors.username_on_record(typed=body.validated_data["username"]),
            password=body.validated_data["password"],
        )
        if user is None or not user.is_active:
            raise Problem.invalid(
                field="password",
                code="invalid_credentials",
                message="The username and password do not match an account.",
                slug="invalid-credentials",
                title="Wrong username or password",
            )
        instance, token = services.token_create(user=user)
        if body.validated_data["session"]:
            login(request._request, user)
        return Response(
            {"token": token, "expiry": instance.expiry, "user": UserSerializer(user).data}
        )


class LogoutView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        request=None,
        responses={204: None},
        summary="Revoke this device's token",
        operation_id="logout",
    )
    def post(self, request: Request) -> Response:
        if request.auth is not None:
            services.token_revoke(token=request.auth)
        logout(request._request)
        return Response(status=status.HTTP_204_NO_CONTENT)


class LogoutAllView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        request=None,
        responses={204: None},
        summary="Sign out everywhere: every token and every browser session of the caller",
        operation_id="logoutEverywhere",
    )
    def post(self, request: Request) -> Response:
        services.user_sign_out_everywhere(user=request.user)
        logout(request._request)
        return Response(status=status.HTTP_204_NO_CONTENT)


class CsrfView(APIView):
    permission_classes = [AllowAny]
    authentication_classes: list[type] = []

    @extend_schema(
        responses={204: None},
        summary="Set the csrftoken cookie for the web app's session requests",
        operation_id="getCsrfCookie",
    )
    def get(self, request: Request) -> Response:
        get_token(request._request)  # the CSRF middleware then sets the cookie on the way out
        return Response(status=status.HTTP_204_NO_CONTENT)


class MeView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        responses={200: UserSerializer},
        summary="The caller and their study settings",
        operation_id="getMe",
    )
    def get(self, request: Request) -> Response:
        return Response(UserSerializer(request.user).data)

    @extend_schema(
        request=UserSerializer,
        responses={200: UserSerializer},
        summary="Change study settings (plan and username are read-only)",
        operation_id="updateMe",
    )
    def patch(self, request: Request) -> Response:
        body = UserSerializer(request.user, data=request.data, partial=True)
        body.is_valid(raise_exception=True)
        user = services.user_update_settings(user=request.user, **body.validated_data)
        return Response(UserSerializer(user).data)

    @extend_schema(
        request=PasswordSerializer,
        responses={204: None},
        summary="Delete the account and all of its learning data",
        operation_id="deleteAccount",
    )
    def delete(self, request: Request) -> Response:
        body = PasswordSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        try:
            services.user_delete(user=request.user, password=body.validated_data["password"])
        except services.WrongPassword:
            raise Problem.invalid(
                field="password",
                code="wrong_password",
                message="The password is not right; the account was not deleted.",
                slug="wrong-password",
                title="Wrong password",
            ) from None
        logout(request._request)
        return Response(status=status.HTTP_204_NO_CONTENT)


class ExportView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        responses={
            200: OpenApiResponse(
                response=inline_serializer(
                    "Export",
                    {
                        "exported_at": serializers.DateTimeField(),
                        "profile": serializers.DictField(),
                        "tokens": serializers.ListField(child=serializers.DictField()),
                        "notifications": serializers.ListField(child=serializers.DictField()),
                    },
                ),
                description="Everything the service holds about the caller.",
            )
        },
        summary="Export everything held about the caller",
        operation_id="exportAccount",
    )
    def get(self, request: Request) -> StreamingHttpResponse:
        return export_files.streamed(request.user)

    @extend_schema(
        request=None,
        responses={
            202: OpenApiResponse(
                response=inline_serializer(
                    "ExportPreparing",
                    {"status": serializers.CharField(), "detail": serializers.CharField()},
                ),
                description="The export is being prepared; a notification brings its link.",
            )
        },
        summary="Prepare the export in the background, for a notification with a link",
        operation_id="prepareAccountExport",
    )
    def post(self, request: Request) -> Response:
        started = export_files.request_preparation(
            request.user, send=lambda pk: background.send(tasks.export_prepare, pk)
        )
        return Response(
            {
                "status": "preparing",
                "detail": "Your export is being prepared: a notification will bring a link "
                "to download it."
                if started
                else "Your export is already being prepared: a notification will bring a "
                "link to download it.",
            },
            status=status.HTTP_202_ACCEPTED,
        )


class ExportFileView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        responses={
            (200, "application/json"): OpenApiResponse(description="The prepared export."),
        },
        summary="Download a prepared export (its owner, signed in, before the link expires)",
        operation_id="downloadAccountExport",
    )
    def get(self, request: Request, token: str) -> FileResponse:
        try:
            opened, name = export_files.file_for(token=token, user=request.user)
        except signing.BadSignature:
            raise NotFound("There is no such export.") from None
        except export_files.LinkExpired:
            raise Problem(
                status_code=410,
                slug="export-expired",
                title="This export has expired",
                detail="Links to a prepared export last "
                f"{settings.EXPORT_LINK_SECONDS // 3600} hours. Ask for a new export.",
            ) from None
        response = FileResponse(
            opened, as_attachment=True, filename=name, content_type="application/json"
        )
        response["Cache-Control"] = "no-store"
        return response


@extend_schema_view(
    get=extend_schema(
        summary="The caller's reminders and notices, newest first", operation_id="listNotifications"
    )
)
class NotificationListView(generics.ListAPIView[Notification]):
    permission_classes = [IsAuthenticated]
    serializer_class = NotificationSerializer
    filterset_class = NotificationFilter

    def get_queryset(self) -> Any:
        if getattr(self, "swagger_fake_view", False):  # the schema generator has no user
            return Notification.objects.none()
        return selectors.notifications_of(user=self.request.user)


class NotificationsReadView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        request=NotificationsReadSerializer,
        responses={200: NotificationsReadResponseSerializer},
        summary="Mark notifications read (the listed ones, or all)",
        operation_id="markNotificationsRead",
    )
    def post(self, request: Request) -> Response:
        body = NotificationsReadSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        marked = services.notifications_mark_read(
            user=request.user, ids=body.validated_data.get("ids"), now=timezone.now()
        )
        return Response({"marked": marked})
