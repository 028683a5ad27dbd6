from django.urls import path

from . import views

app_name = "engine-stats"

urlpatterns = [
    path("stats/<str:agent_id>", views.EngineStatsView.as_view(), name="stats"),
]
