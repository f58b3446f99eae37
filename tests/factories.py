from __future__ import annotations

from datetime import timedelta

import factory
from django.utils import timezone
from factory.django import DjangoModelFactory

from accounts import entitlements
from accounts.models import Grant, User
from classrooms.models import Assignment, Classroom, Membership
from course import markdown
from course.models import Access, Course, GlossaryTerm, Lesson, Section
from quizzes.models import Choice, InterviewCategory, InterviewEntry, Question

PASSWORD = "correct horse battery staple"


class UserFactory(DjangoModelFactory[User]):
    class Meta:
        model = User
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"learner{n}")
    email = factory.LazyAttribute(lambda u: f"{u.username}@example.com")
    password = factory.django.Password(PASSWORD)

    @factory.post_generation
    def plan(obj: User, create: bool, extracted: str | None, **kwargs: object) -> None:
        """`plan="pro"` gives Pro as staff would: an open grant without an end."""
        if extracted == User.Plan.PRO and create:
            entitlements.grant_add(user_id=obj.pk, source=Grant.Source.STAFF, reference="factory")
            obj.refresh_from_db(fields=["pro_until"])


class CourseFactory(DjangoModelFactory[Course]):
    class Meta:
        model = Course
        django_get_or_create = ("slug",)

    slug = factory.Sequence(lambda n: f"course-{n}")
    title = factory.Sequence(lambda n: f"Course {n}")
    summary = "What the course teaches."


class LessonFactory(DjangoModelFactory[Lesson]):
    class Meta:
        model = Lesson

    course = factory.SubFactory(CourseFactory)
    slug = factory.Sequence(lambda n: f"lesson-{n}")
    number = factory.Sequence(lambda n: n + 1)
    title = factory.Sequence(lambda n: f"Lesson {n}")
    summary = "What the lesson covers."
    minutes = 10
    access = Access.FREE
    takeaways = factory.LazyFunction(lambda: ["One idea to keep."])
    sources = factory.LazyFunction(lambda: ["Vaswani et al. (2017). Attention Is All You Need."])


class SectionFactory(DjangoModelFactory[Section]):
    class Meta:
        model = Section

    lesson = factory.SubFactory(LessonFactory)
    slug = factory.Sequence(lambda n: f"section-{n}")
    position = factory.Sequence(lambda n: n + 1)
    title = factory.Sequence(lambda n: f"Section {n}")
    access = Access.FREE
    body_markdown = factory.Sequence(lambda n: f"Body of **section {n}**.")
    body_html = factory.LazyAttribute(lambda s: markdown.render(s.body_markdown))


class GlossaryTermFactory(DjangoModelFactory[GlossaryTerm]):
    class Meta:
        model = GlossaryTerm

    course = factory.SubFactory(CourseFactory)
    slug = factory.Sequence(lambda n: f"term-{n}")
    term = factory.Sequence(lambda n: f"Term {n}")
    aliases = factory.LazyFunction(list)
    definition_markdown = "A definition."
    definition_html = factory.LazyAttribute(lambda t: markdown.render(t.definition_markdown))


class QuestionFactory(DjangoModelFactory[Question]):
    class Meta:
        model = Question

    key = factory.Sequence(lambda n: f"question-{n}")
    kind = Question.Kind.NUMERIC
    topic = Question.Topic.MLP
    difficulty = 2
    lesson = factory.SubFactory(LessonFactory)
    # A section of its own lesson, with the lesson's access (pass one to share it).
    section = factory.SubFactory(
        SectionFactory,
        lesson=factory.SelfAttribute("..lesson"),
        access=factory.SelfAttribute("..lesson.access"),
    )
    position = factory.Sequence(lambda n: n + 1)
    prompt_markdown = "How many weights does the MLP of a 1,000-wide model hold (ratio 4)?"
    prompt_html = factory.LazyAttribute(lambda q: markdown.render(q.prompt_markdown))
    explanation_html = "<p>Two matrices of d by 4d.</p>"
    answer = 8_000_000
    tolerance = factory.LazyFunction(lambda: {"kind": "exact", "amount": 0.0})
    mistakes = factory.LazyFunction(
        lambda: [{"code": "one_matrix", "value": 4_000_000, "message": "That is one matrix."}]
    )
    solution_steps = factory.LazyFunction(lambda: ["2 × 1,000 × 4,000 = 8,000,000"])


class InterviewCategoryFactory(DjangoModelFactory[InterviewCategory]):
    class Meta:
        model = InterviewCategory
        django_get_or_create = ("slug",)

    slug = factory.Sequence(lambda n: f"category-{n}")
    title = factory.Sequence(lambda n: f"Category {n}")
    summary = "Questions an interview asks about it."
    position = factory.Sequence(lambda n: n + 1)


KEY_POINTS = [
    "Attention mixes information across positions; the MLP works per token.",
    "The MLP holds about two thirds of a block's weights.",
    "Each sublayer sits inside a residual connection.",
    "Pre-norm puts the layer norm before each sublayer.",
]


class BankQuestionFactory(DjangoModelFactory[Question]):
    """A question of the interview bank: in a category, at a level, with its entry (four key
    points unless given)."""

    class Meta:
        model = Question
        skip_postgeneration_save = True

    key = factory.Sequence(lambda n: f"bank-question-{n}")
    kind = Question.Kind.FREE_TEXT
    difficulty = 3
    lesson = None
    section = None
    category = factory.SubFactory(InterviewCategoryFactory)
    level = "mid"
    position = factory.Sequence(lambda n: n + 1)
    prompt_markdown = factory.Sequence(lambda n: f"What is inside transformer block {n}?")
    prompt_html = factory.LazyAttribute(lambda q: markdown.render(q.prompt_markdown))
    model_answer_markdown = "Attention, then an MLP, each inside a residual connection."
    model_answer_html = factory.LazyAttribute(lambda q: markdown.render(q.model_answer_markdown))

    @factory.post_generation
    def key_points(self, create: bool, given: list[str] | None, **kwargs: object) -> None:
        if create:
            interview_entry(self, given)


def interview_entry(question: Question, given: list[str] | None, **fields: object) -> None:
    """The bank entry of `question`: its notes, key points (`KEY_POINTS` unless given) and
    any other `fields`."""
    InterviewEntry.objects.create(
        question=question,
        notes_markdown="Deeper.",
        notes_html="<p>Deeper.</p>",
        key_points=list(KEY_POINTS if given is None else given),
        search_title=question.prompt_markdown,
        **fields,
    )


SOFTMAX_STARTER = (
    'import numpy as np\n\n\ndef softmax(x):\n    """Softmax over the last axis."""\n    ...\n'
)
SOFTMAX_SOLUTION = (
    "import numpy as np\n\n\ndef softmax(x):\n"
    "    e = np.exp(x - x.max(axis=-1, keepdims=True))\n"
    "    return e / e.sum(axis=-1, keepdims=True)\n"
)


class CodeQuestionFactory(BankQuestionFactory):
    """A coding question of the bank, graded by the engine's `softmax` problem unless told."""

    kind = Question.Kind.CODE
    prompt_markdown = factory.Sequence(lambda n: f"Write softmax, number {n}, over the last axis.")

    @factory.post_generation
    def key_points(self, create: bool, given: list[str] | None, **kwargs: object) -> None:
        if create:
            interview_entry(
                self,
                given,
                code_problem=kwargs.get("problem", "softmax"),
                code_starter=kwargs.get("starter", SOFTMAX_STARTER),
                code_solution=kwargs.get("solution", SOFTMAX_SOLUTION),
            )


class ChoiceFactory(DjangoModelFactory[Choice]):
    class Meta:
        model = Choice

    question = factory.SubFactory(
        QuestionFactory, kind=Question.Kind.SINGLE_CHOICE, answer=None, mistakes=[]
    )
    position = factory.Sequence(lambda n: n + 1)
    text_markdown = factory.Sequence(lambda n: f"Choice {n}")
    text_html = factory.LazyAttribute(lambda c: markdown.render(c.text_markdown))
    is_correct = False
    explanation_html = "<p>Why.</p>"


class ClassroomFactory(DjangoModelFactory[Classroom]):
    class Meta:
        model = Classroom

    name = factory.Sequence(lambda n: f"Class {n}")
    course = factory.SubFactory(CourseFactory)
    teacher = factory.SubFactory(UserFactory)


class MembershipFactory(DjangoModelFactory[Membership]):
    class Meta:
        model = Membership

    classroom = factory.SubFactory(ClassroomFactory)
    user = factory.SubFactory(UserFactory)


class AssignmentFactory(DjangoModelFactory[Assignment]):
    class Meta:
        model = Assignment

    classroom = factory.SubFactory(ClassroomFactory)
    title = factory.Sequence(lambda n: f"Assignment {n}")
    lesson = None
    question_ids = factory.LazyFunction(list)
    due_at = factory.LazyFunction(lambda: timezone.now() + timedelta(days=7))
