"""ci/commands"""
