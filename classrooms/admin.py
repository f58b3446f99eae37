from django.contrib import admin

from classrooms.models import Assignment, Classroom, Membership


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0
    raw_id_fields = ("user",)
    readonly_fields = ("joined_at",)


class AssignmentInline(admin.TabularInline):
    model = Assignment
    extra = 0
    fields = ("title", "lesson", "question_ids", "due_at")
    raw_id_fields = ("lesson",)


@admin.register(Classroom)
class ClassroomAdmin(admin.ModelAdmin):
    list_display = ("name", "course", "teacher", "created_at")
    list_filter = ("course",)
    search_fields = ("name", "teacher__username")
    raw_id_fields = ("teacher",)
    readonly_fields = ("join_code", "created_at")
    inlines = [MembershipInline, AssignmentInline]


@admin.register(Membership)
class MembershipAdmin(admin.ModelAdmin):
    list_display = ("user", "classroom", "joined_at")
    search_fields = ("user__username", "classroom__name")
    raw_id_fields = ("user", "classroom")
    list_select_related = ("user", "classroom")


@admin.register(Assignment)
class AssignmentAdmin(admin.ModelAdmin):
    list_display = ("title", "classroom", "lesson", "due_at")
    list_filter = ("classroom__course",)
    search_fields = ("title", "classroom__name")
    raw_id_fields = ("classroom", "lesson")
    list_select_related = ("classroom", "lesson")
