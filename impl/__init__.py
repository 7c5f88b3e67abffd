"""impl"""
