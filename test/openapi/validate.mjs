// Validates an OpenAPI document against the OpenAPI 3.1 schema
// (swagger-parser dereferences and validates every $ref).
import SwaggerParser from "@apidevtools/swagger-parser";

const api = await SwaggerParser.validate(process.argv[2]);
console.log(`swagger-parser: ${api.info.title}, OpenAPI ${api.openapi}, ${Object.keys(api.paths).length} paths: valid`);
