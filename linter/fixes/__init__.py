"""The fix core and its adapters (issue 23 §2): ``core`` turns one file's findings into edits keyed by what they set
and writes them, with one clash policy, one reason type (``CannotFix``) and one re-parse check; ``cfn`` is the
CloudFormation/SAM/Serverless-resources adapter (``visguard.linter.fixes.hcl`` and ``fixes.tfjson`` are Terraform's,
``fixes.kubernetes`` manifests', ``fixes.code`` application code's).
``visguard.linter.fix`` plans a whole lint result, checks the plan by linting it, and reads and writes files."""
