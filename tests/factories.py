from __future__ import annotations

import factory
from factory.django import DjangoModelFactory

from accounts.models import User
from course import markdown
from course.models import Access, Course, GlossaryTerm, Lesson, Section

PASSWORD = "correct horse battery staple"


class UserFactory(DjangoModelFactory[User]):
    class Meta:
        model = User
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"learner{n}")
    email = factory.LazyAttribute(lambda u: f"{u.username}@example.com")
    password = factory.django.Password(PASSWORD)
    plan = User.Plan.FREE


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
