/** The endpoints of the local stack (`npm run stack -- up`) that tests and benchmarks run against, read once at import. */
import { loadStackConfig, stackEndpoints } from '@rag-immune/stack';

export const endpoints = stackEndpoints(loadStackConfig());
