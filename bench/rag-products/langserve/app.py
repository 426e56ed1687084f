"""A LangServe route as a LangChain user writes one: a retrieval chain over a Qdrant collection,
served by LangServe's add_routes at /rag (POST /rag/invoke). The second RAG nobody here wrote
(issue 42 item 5), installed by tools/rag-products/install-langserve.sh. Its model endpoints are the
same OpenAI-compatible ones Flowise uses (bench/rag-products/llm-server.ts, embeddings-server.ts).

Settings (environment): QDRANT_URL, QDRANT_API_KEY, QDRANT_COLLECTION (the collection, or the baseline
alias, in LangChain's layout: `content` / `metadata`), OPENAI_BASE_URL_LLM, OPENAI_BASE_URL_EMBEDDINGS,
LLM_MODEL (default gemma-3-270m), PORT, RAG_PROMPT (the system prompt, `{context}` the retrieved
documents, `{input}` the question; default the project's few-shot prompt).

Traces, only when the standard OTEL_EXPORTER_OTLP_TRACES_ENDPOINT (or OTEL_EXPORTER_OTLP_ENDPOINT) is
set: LangChain's OpenInference instrumentation (openinference-instrumentation-langchain) makes the chain's
spans, OpenTelemetry's SDK exports them over OTLP/HTTP protobuf (OTEL_EXPORTER_OTLP_TRACES_HEADERS for the
intake's token, OTEL_SERVICE_NAME), and the FastAPI instrumentation continues the caller's W3C trace
(traceparent and tracestate: the sentinel's probe mark rides on every span of the call).
"""
import os

from fastapi import FastAPI
from langchain_core.documents import Document
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import RunnablePassthrough
from langchain_core.output_parsers import StrOutputParser
from langchain_openai import ChatOpenAI, OpenAIEmbeddings
from langchain_qdrant import QdrantVectorStore
from langserve import add_routes
from pydantic import BaseModel
import uvicorn


def tracer_provider():
    """An OTLP-exporting tracer provider with LangChain instrumented, or None when no endpoint is set.

    Set up before the chain runs: the instrumentation hooks LangChain's callback managers, made per call.
    Everything else comes from the standard OTEL_* environment (the exporter's endpoint and headers, the
    resource's service name, the batch processor's delay), as any OpenTelemetry user configures it.
    """
    if not (os.environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") or os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT")):
        return None
    from openinference.instrumentation.langchain import LangChainInstrumentor
    from opentelemetry import trace
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    # The SDK's provider flushes its batch at interpreter exit (shutdown_on_exit): spans still batched when
    # uvicorn stops on SIGTERM are sent then.
    provider = TracerProvider(resource=Resource.create())
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    trace.set_tracer_provider(provider)
    LangChainInstrumentor().instrument(tracer_provider=provider)
    return provider


provider = tracer_provider()

FEW_SHOT = (
    "Answer the question using only the context. Answer with one short sentence.\n\n"
    "Context: Package: curl | Version: 7.88.1-10+deb12u5 | Released: 2023-12-20 | Uploaded by: Samuel Henrique"
    " | Distribution: bookworm | Urgency: medium\n"
    "Question: What is the latest version of curl?\n"
    "Answer: The latest version of curl is 7.88.1-10+deb12u5.\n\n"
    "Context: Package: curl | Version: 7.88.1-10+deb12u5 | Released: 2023-12-20 | Uploaded by: Samuel Henrique"
    " | Distribution: bookworm | Urgency: medium\n"
    "Question: Who uploaded the latest version of curl?\n"
    "Answer: Samuel Henrique uploaded the latest version of curl.\n\n"
    "Context: {context}"
)

embeddings = OpenAIEmbeddings(
    model="all-MiniLM-L6-v2",
    base_url=os.environ["OPENAI_BASE_URL_EMBEDDINGS"],
    api_key="sk-local-no-key",
    # The tokenizer check downloads tiktoken's files: not with a local model, not offline.
    check_embedding_ctx_length=False,
)
store = QdrantVectorStore.from_existing_collection(
    collection_name=os.environ["QDRANT_COLLECTION"],
    embedding=embeddings,
    url=os.environ["QDRANT_URL"],
    api_key=os.environ.get("QDRANT_API_KEY") or None,
    content_payload_key="content",
    metadata_payload_key="metadata",
)
retriever = store.as_retriever(search_kwargs={"k": 4})
llm = ChatOpenAI(
    model=os.environ.get("LLM_MODEL", "gemma-3-270m"),
    base_url=os.environ["OPENAI_BASE_URL_LLM"],
    api_key="sk-local-no-key",
    temperature=0,
    max_tokens=48,
)
prompt = ChatPromptTemplate.from_messages([("system", os.environ.get("RAG_PROMPT", FEW_SHOT)), ("human", "{input}")])


def format_docs(docs):
    return "\n".join(doc.page_content for doc in docs)


# create_retrieval_chain's shape: {"input", "context": [Document], "answer"}.
chain = RunnablePassthrough.assign(context=(lambda x: x["input"]) | retriever).assign(
    answer=RunnablePassthrough.assign(context=lambda x: format_docs(x["context"])) | prompt | llm | StrOutputParser()
)


class Question(BaseModel):
    input: str


class Answer(BaseModel):
    """The output schema LangServe serialises by: without it the inferred one drops `context`."""

    input: str
    context: list[Document]
    answer: str


app = FastAPI(title="rag-immune LangServe trial route")
add_routes(app, chain.with_types(input_type=Question, output_type=Answer), path="/rag")
if provider is not None:
    from opentelemetry.instrumentation.fastapi import FastAPIInstrumentor

    # The server span continues the request's traceparent/tracestate (W3C propagator, the default); the
    # chain's spans are its children. ASGI's per-message receive/send spans say nothing about the RAG.
    FastAPIInstrumentor.instrument_app(app, tracer_provider=provider, exclude_spans=["receive", "send"])

if __name__ == "__main__":
    uvicorn.run(app, host="127.0.0.1", port=int(os.environ.get("PORT", "18434")))
