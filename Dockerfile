FROM python:3.11-slim
WORKDIR /app
COPY pyproject.toml README.md ./
COPY memworks ./memworks
RUN pip install --no-cache-dir .
USER nobody
