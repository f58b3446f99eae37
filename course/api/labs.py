"""The lessons' interactive demos, computed by the engine. Open to everyone, inputs bounded."""

import math
import secrets
from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.fields import QuerySerializer
from config.problems import Problem
from engine import labs


class NumberListField(serializers.CharField):
    """`1,0.5,-2` as a list of finite numbers."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(max_length=2000, **kwargs)

    def to_internal_value(self, data: Any) -> list[float]:  # type: ignore[override]
        text = super().to_internal_value(data)
        if len(text) > 2000:
            raise serializers.ValidationError("At most 2,000 characters.")
        values = []
        for part in text.split(","):
            try:
                value = float(part)
            except ValueError:
                raise serializers.ValidationError(
                    f"'{part.strip()}' is not a number; separate numbers with commas."
                ) from None
            if not math.isfinite(value):
                raise serializers.ValidationError("Numbers must be finite.")
            values.append(value)
        if len(values) > labs.MAX_NEURON_INPUTS:
            raise serializers.ValidationError(f"At most {labs.MAX_NEURON_INPUTS} numbers.")
        return values


class NeuronQuery(QuerySerializer):
    w = NumberListField(help_text="The weights, comma-separated, e.g. 1,1,0.")
    b = serializers.FloatField(help_text="The bias.")
    x = NumberListField(help_text="The inputs, comma-separated, as many as the weights.")
    activation = serializers.ChoiceField(choices=["relu", "gelu"], default="relu")

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if len(attrs["w"]) != len(attrs["x"]):
            raise serializers.ValidationError({"x": ["Give as many inputs as weights."]})
        return attrs


class ParametersQuery(QuerySerializer):
    """Defaults describe GPT-2 small."""

    d_model = serializers.IntegerField(min_value=1, max_value=100_000, default=768)
    layers = serializers.IntegerField(min_value=1, max_value=1_000, default=12)
    ratio = serializers.IntegerField(min_value=1, max_value=64, default=4)
    vocab = serializers.IntegerField(min_value=1, max_value=10_000_000, default=50_257)
    context = serializers.IntegerField(
        min_value=0, max_value=10_000_000, default=1_024, help_text="0: no learned positions."
    )
    biases = serializers.BooleanField(default=True)
    tied = serializers.BooleanField(default=True, help_text="Output layer shares the embedding.")
    norms = serializers.BooleanField(default=True)


class NearOrthogonalQuery(QuerySerializer):
    dims = serializers.IntegerField(min_value=2, max_value=labs.MAX_DIMS, default=100)
    vectors = serializers.IntegerField(min_value=2, max_value=labs.MAX_VECTORS, default=200)
    seed = serializers.IntegerField(min_value=0, max_value=2**63 - 1, required=False)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if attrs["dims"] * attrs["vectors"] > labs.MAX_CELLS:
            raise serializers.ValidationError(
                {"vectors": [f"dims times vectors must be at most {labs.MAX_CELLS:,}."]}
            )
        return attrs


class NeuronOut(serializers.Serializer[Any]):
    activation = serializers.CharField()
    products = serializers.ListField(child=serializers.FloatField())
    sum = serializers.FloatField()
    bias = serializers.FloatField()
    pre_activation = serializers.FloatField()
    output = serializers.FloatField()


class ParametersOut(serializers.Serializer[Any]):
    parts = serializers.ListField(child=serializers.DictField())
    per_block = serializers.IntegerField()
    blocks = serializers.IntegerField()
    total = serializers.IntegerField()
    convention = serializers.ListField(child=serializers.CharField())


class NearOrthogonalOut(serializers.Serializer[Any]):
    dims = serializers.IntegerField()
    vectors = serializers.IntegerField()
    pairs = serializers.IntegerField()
    bin_edges = serializers.ListField(child=serializers.FloatField())
    counts = serializers.ListField(child=serializers.IntegerField())
    summary = serializers.DictField(child=serializers.FloatField())
    seed = serializers.IntegerField()


def _checked(serializer: serializers.Serializer[Any]) -> dict[str, Any]:
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)


def _lab_problem(error: labs.LabInputError) -> Problem:
    # The engine's messages start with the input's name ("dims must be ...").
    return Problem.invalid(field=str(error).split()[0], code="invalid", message=str(error))


class LabView(APIView):
    permission_classes = [AllowAny]


class NeuronLabView(LabView):
    @extend_schema(
        parameters=[NeuronQuery],
        responses={200: NeuronOut},
        summary="One neuron, step by step",
        operation_id="runNeuronLab",
    )
    def get(self, request: Request) -> Response:
        query = _checked(NeuronQuery(data=request.query_params))
        try:
            steps = labs.neuron(**query)
        except labs.LabInputError as error:
            raise _lab_problem(error) from None
        return Response(steps.to_dict())


class ParametersLabView(LabView):
    @extend_schema(
        parameters=[ParametersQuery],
        responses={200: ParametersOut},
        summary="Parameter counts per part and in total, with the convention",
        operation_id="runParametersLab",
    )
    def get(self, request: Request) -> Response:
        query = _checked(ParametersQuery(data=request.query_params))
        try:
            counted = labs.parameters(**query)
        except labs.LabInputError as error:
            raise _lab_problem(error) from None
        return Response(counted.to_dict())


class NearOrthogonalLabView(LabView):
    @extend_schema(
        parameters=[NearOrthogonalQuery],
        responses={200: NearOrthogonalOut},
        summary="Angles between random directions: a histogram and its summary",
        operation_id="runNearOrthogonalLab",
    )
    def get(self, request: Request) -> Response:
        query = _checked(NearOrthogonalQuery(data=request.query_params))
        seed = query.pop("seed", None)
        seed = secrets.randbelow(2**63) if seed is None else seed
        try:
            histogram = labs.near_orthogonal(rng=seed, **query)
        except labs.LabInputError as error:
            raise _lab_problem(error) from None
        return Response({**histogram.to_dict(), "seed": seed})
