"""The sample CDK app of visguard (cdk.json at the repo root runs ``python -P -m visguard.cdk_app``)."""
