/**
 * Typed errors. Services throw these; the one error handler (plugins/error-handler.ts) turns them into
 * `{"message": …}` bodies with their status. Anything else that reaches it is a 500.
 */
export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class BadRequestError extends HttpError {
  constructor(message: string) {
    super(400, message);
  }
}

export class UnauthorizedError extends HttpError {
  constructor(message = 'Not authorized') {
    super(401, message);
  }
}

export class ForbiddenError extends HttpError {
  constructor(message = 'Access denied.') {
    super(403, message);
  }
}

export class NotFoundError extends HttpError {
  constructor(message: string) {
    super(404, message);
  }
}

export class ConflictError extends HttpError {
  constructor(message: string) {
    super(409, message);
  }
}

export class PayloadTooLargeError extends HttpError {
  constructor(message: string) {
    super(413, message);
  }
}

export class TooManyRequestsError extends HttpError {
  constructor(message: string, retryAfterSeconds: number) {
    super(429, message, { 'retry-after': String(Math.max(1, Math.ceil(retryAfterSeconds))) });
  }
}

/** The service cannot answer now (database unreachable, overloaded): 503 with Retry-After. */
export class ServiceUnavailableError extends HttpError {
  constructor(message: string, retryAfterSeconds: number) {
    super(503, message, { 'retry-after': String(Math.max(1, Math.ceil(retryAfterSeconds))) });
  }
}

export class UnsupportedMediaTypeError extends HttpError {
  constructor(message: string) {
    super(415, message);
  }
}

/** A business rule failed: 422 with a plain message (no per-field errors). */
export class UnprocessableError extends HttpError {
  constructor(message: string) {
    super(422, message);
  }
}

/** Field-level validation failure: 422 `{"message":"Validation failed","errors":{field:[…]}}`. */
export class ValidationError extends HttpError {
  constructor(readonly errors: Record<string, string[]>) {
    super(422, 'Validation failed');
  }

  /** One failing field, for rules the schema cannot express. */
  static field(field: string, message: string): ValidationError {
    return new ValidationError({ [field]: [message] });
  }
}

/** The SQLSTATE of a database error; Drizzle wraps the driver's error, which then sits on `cause`. */
export function driverCode(error: unknown): string | undefined {
  for (let e: unknown = error, depth = 0; e && depth < 3; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code;
  }
  return undefined;
}
