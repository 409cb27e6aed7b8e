"""python -m measure.results > schema/result.schema.json"""

import json

from measure.results.schema import result_schema

print(json.dumps(result_schema(), indent=2, ensure_ascii=False))
