"""The lessons' interactive demos, computed by the engine. Open to everyone: every input is
bounded, the near-orthogonal lab by the work a request may do, results are cached by their
inputs, and callers are throttled (anonymous ones by address, signed-in ones by user)."""

import math
import secrets
from collections.abc import Callable
from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.fields import QuerySerializer
from config.problems import Problem
from config.throttles import AnonymousRateThrottle, SignedInRateThrottle
from course import selectors
from engine import labs


def _number(text: str) -> float:
    """One finite number within the labs' bound, or why not."""
    try:
        value = float(text)
    except ValueError:
        raise serializers.ValidationError(
            f"'{text.strip()}' is not a number; separate numbers with commas."
        ) from None
    if not math.isfinite(value) or abs(value) > labs.MAX_MAGNITUDE:
        raise serializers.ValidationError(
            f"Each number must be from -{labs.MAX_MAGNITUDE:,} to {labs.MAX_MAGNITUDE:,}."
        )
    return value + 0.0  # -0 is 0


@extend_schema_field(OpenApiTypes.DOUBLE)
class NumberField(serializers.CharField):
    """One number, `-0.5`, within the labs' bound."""

    def to_internal_value(self, data: Any) -> float:  # type: ignore[override]
        text = super().to_internal_value(data)
        if len(text) > 100:
            raise serializers.ValidationError("At most 100 characters.")
        return _number(text)


class NumberListField(serializers.CharField):
    """`1,0.5,-2` as a list of numbers within the labs' bound."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(max_length=2000, **kwargs)

    def to_internal_value(self, data: Any) -> list[float]:  # type: ignore[override]
        text = super().to_internal_value(data)
        if len(text) > 2000:
            raise serializers.ValidationError("At most 2,000 characters.")
        values = [_number(part) for part in text.split(",")]
        if len(values) > labs.MAX_NEURON_INPUTS:
            raise serializers.ValidationError(f"At most {labs.MAX_NEURON_INPUTS} numbers.")
        return values


class NeuronQuery(QuerySerializer):
    w = NumberListField(help_text="The weights, comma-separated, e.g. 1,1,0.")
    b = NumberField(help_text="The bias.")
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
    dims = serializers.IntegerField(min_value=labs.MIN_DIMS, max_value=labs.MAX_DIMS, default=100)
    vectors = serializers.IntegerField(
        min_value=2,
        max_value=labs.MAX_VECTORS,
        required=False,
        help_text="How many random directions: 200, or as many as fit, when left out. Fewer "
        f"fit at more dimensions: a request's work must stay within {labs.WORK_BUDGET:,} "
        f"(12,288 dimensions allow {labs.max_vectors(12_288)} vectors).",
    )
    seed = serializers.IntegerField(min_value=0, max_value=2**63 - 1, required=False)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        attrs.setdefault("vectors", min(200, labs.max_vectors(attrs["dims"])))
        if labs.near_orthogonal_work(attrs["dims"], attrs["vectors"]) > labs.WORK_BUDGET:
            message = labs.over_budget(attrs["dims"], attrs["vectors"]).removeprefix("vectors: ")
            raise Problem(
                status_code=400,
                slug="validation-error",
                title="The request has invalid fields",
                detail=message,
                errors=[
                    {"field": name, "code": "over_work_budget", "message": message}
                    for name in ("dims", "vectors")
                ],
            )
        return attrs


class DotQuery(QuerySerializer):
    question = serializers.ChoiceField(choices=list(labs.QUESTIONS), default="michael-jordan")
    person = serializers.ChoiceField(choices=list(labs.PEOPLE), default="michael-jordan")
    bias = NumberField(required=False, help_text="The bias; -1 when left out.")
    other = NumberField(
        required=False,
        help_text=f"How much of everything else the vector holds, 0 to {labs.MAX_OTHER}; "
        "0.5 when left out.",
    )


class DotOut(serializers.Serializer[Any]):
    question = serializers.DictField(help_text="`key`, `label` and the `row` it is.")
    person = serializers.DictField(help_text="`key`, `name` and the `vector` it is.")
    directions = serializers.ListField(child=serializers.CharField())
    products = serializers.ListField(child=serializers.FloatField())
    sum = serializers.FloatField()
    bias = serializers.FloatField()
    pre_activation = serializers.FloatField()
    output = serializers.FloatField()
    fires = serializers.BooleanField()
    geometry = serializers.DictField(
        child=serializers.FloatField(),
        help_text="`row_length`, `vector_length`, `angle_degrees` and the `shadow` (row · x "
        "over the row's length).",
    )


class GateQuery(QuerySerializer):
    bias = NumberField(help_text=f"The bias, from -{labs.MAX_BIAS} to {labs.MAX_BIAS}.")
    scale = NumberField(
        required=False, help_text="The row's length: row = scale × (A + B); 1 when left out."
    )
    activation = serializers.ChoiceField(choices=["relu", "gelu"], default="relu")


class GateRowOut(serializers.Serializer[Any]):
    a = serializers.IntegerField()
    b = serializers.IntegerField()
    pre_activation = serializers.FloatField()
    output = serializers.FloatField()
    fires = serializers.BooleanField(help_text="Whether z = scale · (a + b) + bias is above 0.")


class GateOut(serializers.Serializer[Any]):
    scale = serializers.FloatField()
    bias = serializers.FloatField()
    activation = serializers.CharField()
    rows = GateRowOut(many=True)
    kind = serializers.ChoiceField(choices=["and", "or", "always", "never", "other"])
    and_interval = serializers.DictField(
        child=serializers.FloatField(),
        help_text="The biases that make an AND gate: above `low`, at most `high`.",
    )
    gelu_minimum = serializers.DictField(
        child=serializers.FloatField(), help_text="Where GELU is lowest (`z`) and its `value`."
    )


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


class ToyMlpQuery(QuerySerializer):
    token = serializers.ChoiceField(
        choices=list(labs.TOY_TOKENS),
        default="michael-jordan",
        help_text="The token whose vector goes in, as attention left it.",
    )
    broken = serializers.ChoiceField(
        choices=[n.name.lower() for n in labs.TOY_NEURONS],
        required=False,
        allow_blank=True,
        help_text="A neuron whose bias is set to 0; none when left out or empty.",
    )


class ToyNeuronOut(serializers.Serializer[Any]):
    name = serializers.CharField()
    fact = serializers.CharField(help_text="The fact this neuron stores.")
    asks = serializers.ListField(
        child=serializers.CharField(), help_text="The directions its row of W↑ asks for."
    )
    writes = serializers.ListField(
        child=serializers.CharField(), help_text="The directions its column of W↓ adds."
    )
    row = serializers.ListField(child=serializers.FloatField())
    column = serializers.ListField(child=serializers.FloatField())
    broken = serializers.BooleanField(help_text="Whether its bias was set to 0.")
    activation = serializers.CharField()
    products = serializers.ListField(child=serializers.FloatField())
    sum = serializers.FloatField()
    bias = serializers.FloatField()
    pre_activation = serializers.FloatField()
    output = serializers.FloatField()
    fires = serializers.BooleanField()
    adds = serializers.ListField(
        child=serializers.FloatField(), help_text="Its column scaled by its output."
    )


class ToyFactOut(serializers.Serializer[Any]):
    direction = serializers.CharField()
    amount = serializers.FloatField()


class ToyMlpOut(serializers.Serializer[Any]):
    token = serializers.DictField(help_text="`key`, `name` and the `vector` x it is.")
    directions = serializers.ListField(child=serializers.CharField())
    broken = serializers.CharField(allow_null=True)
    neurons = ToyNeuronOut(many=True)
    mlp_output = serializers.ListField(
        child=serializers.FloatField(), help_text="W↓ ReLU(W↑ x + b)."
    )
    result = serializers.ListField(
        child=serializers.FloatField(), help_text="x plus the MLP's output."
    )
    facts = ToyFactOut(many=True, help_text="The written directions the result holds.")


class ResidualStreamQuery(QuerySerializer):
    off = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=200,
        help_text="The parts switched off, comma-separated, from "
        f"{', '.join(labs.STREAM_PART_KEYS)}; every part is on when left out or empty.",
    )

    def validate_off(self, value: str) -> list[str]:
        parts = [part.strip() for part in value.split(",") if part.strip()]
        for part in parts:
            if part not in labs.STREAM_PART_KEYS:
                raise serializers.ValidationError(
                    f"{part!r} is not a part; the parts are {', '.join(labs.STREAM_PART_KEYS)}."
                )
        return sorted(set(parts), key=labs.STREAM_PART_KEYS.index)


class StreamStageOut(serializers.Serializer[Any]):
    part = serializers.ChoiceField(choices=list(labs.STREAM_PART_KEYS))
    block = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=["attention", "mlp"])
    does = serializers.CharField()
    on = serializers.BooleanField()
    asks = serializers.ListField(
        child=serializers.CharField(), help_text="An MLP's neuron: the features it asks for."
    )
    writes = serializers.CharField(
        allow_null=True, help_text="An MLP's neuron: the direction it writes."
    )
    neuron = serializers.DictField(
        child=serializers.FloatField(),
        allow_null=True,
        help_text="An MLP's neuron: its `pre_activation` z and its `output`.",
    )
    adds = serializers.ListField(
        child=serializers.FloatField(), help_text="What this part adds; nothing when off."
    )
    after = serializers.ListField(
        child=serializers.FloatField(), help_text="The stream after this part."
    )


class StreamWordOut(serializers.Serializer[Any]):
    word = serializers.CharField()
    score = serializers.FloatField()
    chance = serializers.FloatField()


class ResidualStreamOut(serializers.Serializer[Any]):
    directions = serializers.ListField(child=serializers.CharField())
    embedding = serializers.ListField(child=serializers.FloatField())
    off = serializers.ListField(child=serializers.CharField())
    stages = StreamStageOut(many=True)
    final = serializers.ListField(child=serializers.FloatField())
    prediction = StreamWordOut(
        many=True, help_text="The next word after “Michael Jordan plays”: each word's chance."
    )


def _checked(serializer: serializers.Serializer[Any]) -> dict[str, Any]:
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)


def _lab_problem(error: labs.LabInputError) -> Problem:
    # The engine's messages start with the input's name ("dims must be ...", "w: ...").
    field = str(error).split()[0].rstrip(":")
    return Problem.invalid(field=field, code="invalid", message=str(error))


class AnonymousLabThrottle(AnonymousRateThrottle):
    scope = "labs-anonymous"


class SignedInLabThrottle(SignedInRateThrottle):
    scope = "labs"


class LabView(APIView):
    permission_classes = [AllowAny]
    throttle_classes = [AnonymousLabThrottle, SignedInLabThrottle]

    @staticmethod
    def result(lab: str, inputs: dict[str, Any], compute: Callable[[], Any]) -> Response:
        """The lab's result for these inputs (from the cache when it is there); an input the
        engine refuses is a 400 naming it."""
        try:
            return Response(selectors.lab_result(lab=lab, inputs=inputs, compute=compute))
        except labs.LabInputError as error:
            raise _lab_problem(error) from None


class NeuronLabView(LabView):
    @extend_schema(
        parameters=[NeuronQuery],
        responses={200: NeuronOut},
        summary="One neuron, step by step",
        operation_id="runNeuronLab",
    )
    def get(self, request: Request) -> Response:
        query = _checked(NeuronQuery(data=request.query_params))
        return self.result("neuron", query, lambda: labs.neuron(**query).to_dict())


class DotLabView(LabView):
    @extend_schema(
        parameters=[DotQuery],
        responses={200: DotOut},
        summary="A row of W↑ asking a token's vector a question: z, ReLU(z) and the picture",
        operation_id="runDotQuestionLab",
    )
    def get(self, request: Request) -> Response:
        query = {"bias": -1.0, "other": 0.5} | _checked(DotQuery(data=request.query_params))
        return self.result("dot-question", query, lambda: labs.dot_question(**query))


class GateLabView(LabView):
    @extend_schema(
        parameters=[GateQuery],
        responses={200: GateOut},
        summary="A ReLU or GELU neuron on two features: its truth table, and the AND biases",
        operation_id="runGateLab",
    )
    def get(self, request: Request) -> Response:
        query = {"scale": 1.0} | _checked(GateQuery(data=request.query_params))
        return self.result("and-gate", query, lambda: labs.gate(**query).to_dict())


class ParametersLabView(LabView):
    @extend_schema(
        parameters=[ParametersQuery],
        responses={200: ParametersOut},
        summary="Parameter counts per part and in total, with the convention",
        operation_id="runParametersLab",
    )
    def get(self, request: Request) -> Response:
        query = _checked(ParametersQuery(data=request.query_params))
        return self.result("parameters", query, lambda: labs.parameters(**query).to_dict())


class NearOrthogonalLabView(LabView):
    @extend_schema(
        parameters=[NearOrthogonalQuery],
        responses={200: NearOrthogonalOut},
        summary="Angles between random directions: a histogram and its summary",
        operation_id="runNearOrthogonalLab",
    )
    def get(self, request: Request) -> Response:
        query = _checked(NearOrthogonalQuery(data=request.query_params))
        # Without a seed, a fresh draw; kept under the seed it was given, so asking for that
        # seed again is served from the cache.
        query.setdefault("seed", secrets.randbelow(2**63))

        def compute() -> dict[str, Any]:
            inputs = {name: value for name, value in query.items() if name != "seed"}
            histogram = labs.near_orthogonal(rng=query["seed"], **inputs)
            return {**histogram.to_dict(), "seed": query["seed"]}

        return self.result("near-orthogonal", query, compute)


class ToyMlpLabView(LabView):
    @extend_schema(
        parameters=[ToyMlpQuery],
        responses={200: ToyMlpOut},
        summary="A toy MLP storing one fact per neuron, every step from x to x + MLP(x)",
        operation_id="runToyMlpLab",
    )
    def get(self, request: Request) -> Response:
        query = _checked(ToyMlpQuery(data=request.query_params))
        query["broken"] = query.get("broken") or None
        return self.result("toy-mlp", query, lambda: labs.toy_mlp(**query))


class ResidualStreamLabView(LabView):
    @extend_schema(
        parameters=[ResidualStreamQuery],
        responses={200: ResidualStreamOut},
        summary="A token's vector through three blocks, with any part switched off",
        operation_id="runResidualStreamLab",
    )
    def get(self, request: Request) -> Response:
        query = {"off": []} | _checked(ResidualStreamQuery(data=request.query_params))
        return self.result("residual-stream", query, lambda: labs.residual_stream(**query))
