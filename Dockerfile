FROM python:3.11-slim
WORKDIR /app
COPY pyproject.toml README.md constraints.txt ./
COPY memworks ./memworks
# The tooling (`memworks demo | eval | bench | chaos`) lives in memworks_tools, with its libraries in the eval extra.
COPY memworks_tools ./memworks_tools
# Every version pinned as tested (constraints.txt).
RUN pip install --no-cache-dir -c constraints.txt ".[eval]"
USER nobody
