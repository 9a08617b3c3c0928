import type { FastifySchemaCompiler } from 'fastify';
import { SerializerSelector, type SerializerCompiler, type SerializerFactory } from '@fastify/fast-json-stringify-compiler';
import type { ValidateFunction } from 'ajv';
import { compileValidator } from './validation.js';

/*
 * Route schemas compiled when a route is first asked for them, not when it is registered. Fastify compiles every
 * route's validators (ajv) and response serialisers (fast-json-stringify, which builds an ajv instance of its own for
 * each) at start: 1,237 schemas for 227 routes, 0.8–1.3 s of CPU here, which a process that answers a handful of
 * routes (a sending worker, a test file) paid in full, every start. What is compiled is the same; only when changes.
 * The API server compiles them all before it listens (compileAll), so a schema that cannot compile still stops it
 * at start, not at a client's first request; test/system.test.ts compiles every one.
 */
export interface DeferredSchemaCompilers {
  validatorCompiler: FastifySchemaCompiler<unknown>;
  /** For Fastify's schemaController.compilersFactory: its own serialiser factory, deferred. */
  buildSerializer: SerializerFactory;
  /** Compiles every schema not compiled yet; answers how many it compiled. */
  compileAll(): number;
}

export function deferredSchemaCompilers(): DeferredSchemaCompilers {
  const pending = new Set<() => unknown>();
  function defer<T>(compile: () => T): () => T {
    let compiled: T | undefined;
    const get = (): T => {
      if (compiled === undefined) {
        compiled = compile();
        pending.delete(get);
      }
      return compiled;
    };
    pending.add(get);
    return get;
  }

  const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
    const validator = defer(() => compileValidator(schema as object, httpPart));
    // Fastify reads `errors` off the function it was given once the function answers false.
    const validate = ((data: unknown) => {
      const compiled = validator();
      const valid = compiled(data);
      validate.errors = compiled.errors;
      return valid;
    }) as ValidateFunction;
    return validate as ReturnType<FastifySchemaCompiler<unknown>>;
  };

  const fastJsonStringify = SerializerSelector();
  const buildSerializer: SerializerFactory = (externalSchemas, options) => {
    const compile = fastJsonStringify(externalSchemas, options);
    return ((route) => {
      const serializer = defer(() => compile(route));
      return (doc: unknown) => serializer()(doc);
    }) as SerializerCompiler;
  };

  return {
    validatorCompiler,
    buildSerializer,
    compileAll() {
      const all = [...pending];
      for (const get of all) get();
      return all.length;
    },
  };
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Compiles every route schema not compiled yet (DeferredSchemaCompilers.compileAll). */
    compileSchemas(): number;
  }
}
