FROM python:3.11-slim
WORKDIR /app
COPY pyproject.toml README.md ./
COPY memworks ./memworks
# The tooling (`memworks demo | eval | bench | chaos`) lives in memworks_tools, with its libraries in the eval extra.
COPY memworks_tools ./memworks_tools
RUN pip install --no-cache-dir ".[eval]"
USER nobody
