# One image for web, worker and beat (docker-compose.yml picks the command).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1
WORKDIR /app

# The dashboard's requirements and S3 support (deploy/k8s stores bundles in a bucket).
COPY requirements.txt requirements-s3.txt ./
RUN pip install -r requirements.txt -r requirements-s3.txt

COPY manage.py ./
COPY triage ./triage
# The collectors too: Kubernetes runs them from this image (deploy/k8s/training-job.yaml).
COPY collectors ./collectors
COPY templates ./templates
COPY static ./static

# Static files are collected at build time; whitenoise serves them (no CDN, no nginx needed).
RUN DEBUG=1 python manage.py collectstatic --noinput -v 0 \
    && useradd --create-home --uid 1000 triage \
    && mkdir -p /data/media && chown triage /data/media
USER triage
# The engine's scan databases, compiled at build time for the user that runs the engine, so the
# first diagnosis of a new container does not spend seconds on them.
RUN python -m triage.engine.gate --build

EXPOSE 8000
CMD ["gunicorn", "triage.wsgi:application", "--bind", "0.0.0.0:8000", "--workers", "3", "--timeout", "600"]
